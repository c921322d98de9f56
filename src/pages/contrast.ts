/**
 * Colour contrast as WCAG 2.2 defines it (§1.4.3, "relative luminance" and "contrast ratio"),
 * for the colours of `#rrggbb`.
 */

const channel = (value: number): number => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

export function relativeLuminance(hex: string): number {
  const rgb = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!rgb) throw new Error(`not a #rrggbb colour: ${hex}`);
  const [r, g, b] = rgb.slice(1).map((part) => channel(Number.parseInt(part, 16))) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** From 1 (the same) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * White or black, whichever contrasts more with `background`. Every colour reaches at least
 * 4.58:1 with one of them (their ratios are equal at a luminance of √(1.05 × 0.05) − 0.05), so
 * text on any background colour passes WCAG AA (4.5:1).
 */
export function textColourOn(background: string): '#ffffff' | '#000000' {
  return contrastRatio(background, '#ffffff') >= contrastRatio(background, '#000000') ? '#ffffff' : '#000000';
}

/** The grey of relative luminance `luminance` (the inverse of `relativeLuminance` on equal channels). */
function greyOf(luminance: number): string {
  const c = luminance <= 0.0031308 ? luminance * 12.92 : 1.055 * luminance ** (1 / 2.4) - 0.055;
  const byte = Math.round(Math.min(1, Math.max(0, c)) * 255);
  return `#${byte.toString(16).padStart(2, '0').repeat(3)}`;
}

/** What a focus ring needs against the page behind it (WCAG 2.2 §1.4.11, non-text contrast). */
const RING_ON_PAGE = 3;

/**
 * The focus ring's colour on a page of `background` around buttons of `brand`, chosen as the
 * button text is (the candidate that contrasts most with the brand), among those that stand out
 * from the page by 3:1: black, white, the grey whose luminance lies between the two colours'
 * (the geometric mean of their `L + 0.05`, as far from each), and the greys just 3:1 from the page. The ring, drawn beside the button,
 * is then seen on the page whatever the brand, and differs from a button of the brand's colour
 * as much as a colour that is seen on the page can.
 */
export function focusColourOn(background: string, brand: string): string {
  const page = relativeLuminance(background) + 0.05;
  const between = Math.sqrt(page * (relativeLuminance(brand) + 0.05)) - 0.05;
  // The greys just 3:1 from the page, lighter and darker: nearest the brand's middle of all that are seen.
  // A little past 3:1, so that the grey rounded to a byte is still 3:1 away.
  const atTheEdge = [page * RING_ON_PAGE * 1.02 - 0.05, page / (RING_ON_PAGE * 1.02) - 0.05].filter((luminance) => luminance >= 0 && luminance <= 1);
  // Black or white always reaches 4.5:1 with the page (textColourOn): the list is never empty.
  const seen = ['#000000', '#ffffff', ...[between, ...atTheEdge].map(greyOf)].filter((colour) => contrastRatio(colour, background) >= RING_ON_PAGE);
  return seen.reduce((best, colour) => (contrastRatio(colour, brand) > contrastRatio(best, brand) ? colour : best));
}
