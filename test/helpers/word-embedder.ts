import type { TextEmbedder } from '../../backends/embedding';

/** A toy embedder: one dimension per word of a small vocabulary, so similarities are predictable. */
export function wordEmbedder(vocabulary: string[]): TextEmbedder {
  return {
    name: 'toy',
    dimensions: vocabulary.length,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array(vocabulary.length);
        for (const w of t.toLowerCase().split(/\W+/)) {
          const i = vocabulary.indexOf(w);
          if (i >= 0) v[i] += 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  } as unknown as TextEmbedder;
}
