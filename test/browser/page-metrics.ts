import type { Page } from 'playwright-core';

/** A text of the page and how it contrasts with what is behind it (WCAG 2.2 §1.4.3). */
export interface TextContrast {
  /** The element holding the text, as tag#id.class. */
  readonly element: string;
  readonly text: string;
  readonly ratio: number;
  /** 4.5, or 3 for large text (24 px, or 18.66 px bold). */
  readonly required: number;
  readonly color: string;
  readonly background: string;
}

/** What a page looks like at the window's width. */
export interface PageMetrics {
  /** `document.scrollingElement.scrollWidth`: wider than `innerWidth` means sideways scrolling. */
  readonly scrollWidth: number;
  readonly innerWidth: number;
  /** Elements whose box reaches past the window's left or right edge. */
  readonly overflowing: readonly string[];
  readonly contrasts: readonly TextContrast[];
  /** Colours the measurement could not read (it fails rather than guesses). */
  readonly unreadable: readonly string[];
}

/**
 * Runs in the page: plain JavaScript as a string, so that nothing the test runner's compiler adds
 * to a function reaches the browser. The background of a text is the first opaque background
 * colour of it and its ancestors, with any translucent ones between blended over it; the page's
 * canvas (white, or black in the dark scheme) is under all.
 */
const MEASURE = String.raw`(() => {
  const unreadable = [];
  const parse = (value, where) => {
    const match = /^rgba?\(([^)]*)\)$/.exec(value);
    if (!match) { unreadable.push(where + ': ' + value); return { r: 0, g: 0, b: 0, a: 0 }; }
    const parts = match[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const describe = (element) => {
    const classes = typeof element.className === 'string' ? element.className.trim().split(/\s+/).filter(Boolean) : [];
    return element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + classes.map((name) => '.' + name).join('');
  };
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const canvas = dark ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };
  const backgroundOf = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor, describe(node) + ' background');
      if (colour.a > 0) layers.push(colour);
      if (colour.a >= 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), canvas);
  };
  const luminance = (c) => {
    const channel = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  };
  const ratioOf = (a, b) => {
    const [light, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (darker + 0.05);
  };
  const rgb = (c) => 'rgb(' + [c.r, c.g, c.b].map(Math.round).join(', ') + ')';
  const shown = (element) => {
    const style = getComputedStyle(element);
    if (style.display === 'none' || style.visibility !== 'visible' || Number(style.opacity) === 0) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };

  const contrasts = [];
  const overflowing = [];
  for (const element of document.body.querySelectorAll('*')) {
    if (!shown(element)) continue;
    const box = element.getBoundingClientRect();
    if (box.right > innerWidth + 0.5 || box.left < -0.5) overflowing.push(describe(element) + ' [' + Math.round(box.left) + ', ' + Math.round(box.right) + ']');
    const texts = [];
    const own = [...element.childNodes].filter((node) => node.nodeType === 3 && node.textContent.trim()).map((node) => node.textContent.trim()).join(' ');
    if (own) texts.push({ text: own, style: getComputedStyle(element) });
    if (element.tagName === 'INPUT' && element.value) texts.push({ text: element.value, style: getComputedStyle(element) });
    if (element.tagName === 'INPUT' && !element.value && element.placeholder) texts.push({ text: element.placeholder, style: getComputedStyle(element, '::placeholder') });
    for (const { text, style } of texts) {
      const background = backgroundOf(element);
      const colour = parse(style.color, describe(element) + ' color');
      const foreground = colour.a < 1 ? over(colour, background) : colour;
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      contrasts.push({
        element: describe(element),
        text: text.slice(0, 60),
        ratio: ratioOf(foreground, background),
        required: large ? 3 : 4.5,
        color: rgb(foreground),
        background: rgb(background),
      });
    }
  }
  return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth, overflowing, contrasts, unreadable };
})()`;

export function measurePage(page: Page): Promise<PageMetrics> {
  return page.evaluate(MEASURE) as Promise<PageMetrics>;
}

/** The text that contrasts least with its background. */
export function lowestContrast(metrics: PageMetrics): TextContrast | undefined {
  return [...metrics.contrasts].sort((a, b) => a.ratio - b.ratio)[0];
}
