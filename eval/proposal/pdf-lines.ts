/**
 * The lines of a PDF as a reader sees them, page by page: what the proposal's cut-word check reads
 * (a line that stops inside a word, as a footer sliced to a fixed width does).
 */
import { readFileSync } from 'node:fs';

interface TextItemLike {
  str: string;
  transform: number[];
  hasEOL?: boolean;
}

export async function pdfLines(file: string): Promise<string[][]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(file)), isEvalSupported: false }).promise;
  const pages: string[][] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const lines: string[] = [];
      let line = '';
      let y: number | null = null;
      for (const raw of content.items) {
        if (!('str' in raw)) continue;
        const item = raw as TextItemLike;
        const itemY = item.transform[5];
        // A new baseline starts a new line even when the producer wrote no end-of-line mark.
        if (y !== null && Math.abs(itemY - y) > 1 && line.trim()) {
          lines.push(line.trim());
          line = '';
        }
        line += item.str;
        y = itemY;
        if (item.hasEOL) {
          if (line.trim()) lines.push(line.trim());
          line = '';
          y = null;
        }
      }
      if (line.trim()) lines.push(line.trim());
      pages.push(lines);
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return pages;
}
