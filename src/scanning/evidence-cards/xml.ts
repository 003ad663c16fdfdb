/** XML text for the evidence cards' SVGs: escaped when written (card-svg.ts), read back by text-raster.ts. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const XML_ENTITIES: Record<string, string> = Object.fromEntries(Object.entries(XML_ESCAPES).map(([c, e]) => [e, c]));

/**
 * Text safe inside an SVG element or attribute: the five XML specials as
 * entities, and characters XML 1.0 cannot carry (controls, lone surrogates,
 * U+FFFE/U+FFFF) as U+FFFD.
 */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/gu, (c) => XML_ESCAPES[c]);
}

/** The text escapeXml wrote (its five entities back to characters). */
export function unescapeXml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|apos);/gu, (e) => XML_ENTITIES[e]);
}
