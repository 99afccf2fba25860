/**
 * Markdown written by the flows (a BOM answer's summary, a model's prose) rendered as HTML for
 * the console. markdown-it with raw HTML off escapes every tag in the text, so an answer holding
 * `<script>` shows it as text; links and images are limited further below.
 */
import MarkdownIt from 'markdown-it';
import { Html } from './html';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// An image would be fetched by the reader's browser from wherever the text points (the CSP
// refuses other origins anyway): shown as its alt text instead.
md.disable('image');
// Only http(s) links become links; markdown-it's default also lets relative and mailto: through.
md.validateLink = (url: string) => /^https?:\/\//i.test(url.trim());
// Links leave the console in a new tab without handing it the opener.
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i].attrSet('rel', 'noopener noreferrer');
  tokens[i].attrSet('target', '_blank');
  return defaultLinkOpen(tokens, i, options, env, self);
};

/** Markdown as HTML, in a `div.md` (its styles keep code blocks and tables inside the page). */
export function renderMarkdown(text: string): Html {
  return new Html(`<div class="md">${md.render(text)}</div>`);
}

/** An http(s) URL as given, or undefined for anything a reader should not be sent to. */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
