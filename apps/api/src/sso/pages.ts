// Minimal HTML pages for the browser leg of sign-in (errors people must be able to read); no scripts, no styles.

// Escapes text for HTML element content and attribute values.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Content-Security-Policy of these pages: nothing may load or run. */
export const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// A complete page with a title, explanatory paragraphs and an optional link back to the sign-in.
export function messagePage(title: string, paragraphs: string[], link?: { href: string; text: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n    ');
  const anchor = link ? `\n    <p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : '';
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>${escapeHtml(title)} · Hookwarden</title></head>
  <body>
    <h1>${escapeHtml(title)}</h1>
    ${body}${anchor}
  </body>
</html>
`;
}
