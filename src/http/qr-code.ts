import { renderSVG } from 'uqr';

// A QR code as inline SVG markup made on this server: no external service sees the secret it carries, and the strict
// CSP holds (SVG presentation attributes, no style attribute, no script).

/** The SVG of `text`, an image named `label` for screen readers. */
export function qrCodeSvg(text: string, label: string): string {
  const svg = renderSVG(text, { ecc: 'M', border: 2 });
  return svg.replace('<svg ', `<svg role="img" aria-label="${escapeAttribute(label)}" class="qr-code" `);
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
