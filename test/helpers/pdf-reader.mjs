// Reads one PDF with pdf.js in a worker thread of its own (test/proposal-helpers.ts readPdf):
// pdf.js puts browser things on the global object when it loads (self, DOMMatrix, Path2D, an
// Iterator polyfill), which would otherwise stay in the test process for every file after it.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

// pdfjs v4 ships ESM only; the legacy build runs on Node without a DOM.
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
const doc = await pdfjs.getDocument({
  data: new Uint8Array(readFileSync(workerData.file)),
  disableFontFace: true,
  verbosity: 0,
}).promise;
const pageTexts = [];
const links = [];
for (let i = 1; i <= doc.numPages; i++) {
  const page = await doc.getPage(i);
  const content = await page.getTextContent();
  pageTexts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  for (const a of await page.getAnnotations()) {
    if (a.subtype === 'Link' && typeof a.url === 'string') links.push({ page: i, url: a.url });
  }
}
const meta = await doc.getMetadata();
const pages = doc.numPages;
await doc.destroy();
parentPort.postMessage({ pages, pageTexts, links, title: meta.info?.Title });
