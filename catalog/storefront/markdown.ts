/**
 * Markdown from pack texts, rendered at catalog build for the skill pages. markdown-it (CommonMark)
 * with raw HTML off: a `<script>` or `<img onerror>` in a pack is printed as text, never markup, and
 * its link validator refuses javascript:, vbscript:, file: and data: (but images) URLs. Chosen over
 * writing a renderer: the safety rules are the library's, tested by its users.
 */
import MarkdownIt from 'markdown-it';
import { SAMPLE_END_MARKER } from '../render';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// Links in pack texts open outside the shop and pass no referrer or opener.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, i, options, env, self);
};

/** Pack Markdown as safe HTML; headings shift down one level so the page keeps one h1. */
export function renderMarkdown(text: string): string {
  const tokens = md.parse(text, {});
  for (const t of tokens) {
    if ((t.type === 'heading_open' || t.type === 'heading_close') && /^h[1-5]$/.test(t.tag)) t.tag = `h${Number(t.tag[1]) + 2}`;
  }
  return md.renderer.render(tokens, md.options, {});
}

/** The free sample as a page shows it: the excerpt, then its closing note, without the build's marker comment. */
export function renderSampleHtml(sample: string): string {
  return renderMarkdown(sample.replace(SAMPLE_END_MARKER, '\n\n'));
}
