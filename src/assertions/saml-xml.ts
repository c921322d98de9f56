import { DOMParser, type Document, type Element, MIME_TYPE, type Node } from '@xmldom/xmldom';
import { refuse } from './saml-refusal.js';

const ELEMENT_NODE = 1;
const PROCESSING_INSTRUCTION_NODE = 7;
const DOCUMENT_TYPE_NODE = 10;

/** Deeper documents are refused before anything recursive walks them; a SAML assertion nests about six deep. */
const MAX_DEPTH = 32;

/** RFC 4648 §5, optionally padded (RFC 7522 §2.1 says SHOULD NOT, and a client that pads anyway is tolerated). */
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** XML 1.0 §2.8: the declaration, which may only open the document. */
const XML_DECLARATION =
  /^<\?xml\s+version\s*=\s*(["'])1\.0\1(?:\s+encoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]*)\2)?(?:\s+standalone\s*=\s*(["'])(?:yes|no)\4)?\s*\?>/;

/**
 * RFC 7522 §2.1: the `assertion` parameter is the assertion's XML, base64url-encoded with
 * the padding bits zero and no line breaks, decoded here as UTF-8 (nothing else is accepted).
 */
export function decodeAssertionXml(encoded: string): string {
  if (!BASE64URL.test(encoded)) refuse('it is not base64url-encoded');
  const unpadded = encoded.replace(/=+$/, '');
  if (unpadded.length % 4 === 1 || (unpadded.length !== encoded.length && encoded.length % 4 !== 0)) {
    refuse('it is not base64url-encoded');
  }
  const bytes = Buffer.from(unpadded, 'base64url');
  if (bytes.toString('base64url') !== unpadded) refuse('it is not base64url-encoded');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('it is not UTF-8 text');
  }
}

/**
 * Refuses, on the text and before any parser sees it, what could make a parser read files or
 * expand entities (XXE, "billion laughs"): any document type declaration or entity
 * declaration. Processing instructions other than the XML declaration are refused too: a SAML
 * assertion has no use for them, and canonicalization would keep them inside signed content.
 */
export function screenXmlText(xml: string): void {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) refuse('it has a document type or entity declaration');
  const declaration = XML_DECLARATION.exec(xml);
  if (declaration?.[3] !== undefined && declaration[3].toLowerCase() !== 'utf-8') refuse('it declares an encoding other than UTF-8');
  const body = declaration ? xml.slice(declaration[0].length) : xml;
  if (body.includes('<?')) refuse('it has a processing instruction');
}

/**
 * Parses XML that `screenXmlText` let through. Every warning and error of the parser is a
 * refusal: a lenient parser that repairs input would check something other than what was signed.
 */
export function parseXmlStrictly(xml: string): Document {
  screenXmlText(xml);
  let document: Document;
  try {
    const parser = new DOMParser({
      locator: false,
      // XML 1.0 §2.11 (this parser's default adds XML 1.1's NEL and line separators): a document
      // of version 1.0 means the same text here as it did to the signature's canonicalization.
      normalizeLineEndings: (text) => text.replace(/\r\n?/g, '\n'),
      onError: () => {
        throw new Error('not well-formed');
      },
    });
    document = parser.parseFromString(xml, MIME_TYPE.XML_APPLICATION);
  } catch {
    return refuse('it is not well-formed XML');
  }
  if (!document.documentElement) refuse('it is not well-formed XML');
  checkNodes(document);
  return document;
}

/** Defence in depth behind the text screen, and the depth bound, walked without recursion. */
function checkNodes(document: Document): void {
  const stack: Array<{ node: Node; depth: number }> = [{ node: document, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node.nodeType === DOCUMENT_TYPE_NODE) refuse('it has a document type or entity declaration');
    // The parser keeps the XML declaration as a processing instruction that opens the document.
    const declaration = node.nodeType === PROCESSING_INSTRUCTION_NODE && node === document.firstChild && node.nodeName === 'xml';
    if (node.nodeType === PROCESSING_INSTRUCTION_NODE && !declaration) refuse('it has a processing instruction');
    if (depth > MAX_DEPTH) refuse('it nests elements too deeply');
    for (let child = node.firstChild; child; child = child.nextSibling) stack.push({ node: child, depth: depth + 1 });
  }
}

/** Every element below `root`, `root` first, in document order. */
export function descendantElements(root: Element): Element[] {
  const found: Element[] = [];
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const element = stack.pop()!;
    found.push(element);
    const children = childElements(element);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
}

/** The child elements of `parent`, or those with this namespace and local name. */
export function childElements(parent: Element, namespace?: string, localName?: string): Element[] {
  const found: Element[] = [];
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE) continue;
    const element = child as Element;
    if (namespace !== undefined && (element.namespaceURI !== namespace || element.localName !== localName)) continue;
    found.push(element);
  }
  return found;
}

/** The one child element of this name, undefined when there is none; refused when there are more (`what` names it). */
export function optionalChild(parent: Element, namespace: string, localName: string, what: string): Element | undefined {
  const children = childElements(parent, namespace, localName);
  if (children.length > 1) refuse(`it has more than one ${what}`);
  return children[0];
}

export function requiredChild(parent: Element, namespace: string, localName: string, what: string): Element {
  return optionalChild(parent, namespace, localName, what) ?? refuse(`it has no ${what}`);
}

/** Control characters, line and paragraph separators, and lone UTF-16 surrogates: no identifier holds them. */
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The text of an element that holds only text (an Issuer, a NameID, an Audience); refused when
 * it is empty or holds elements. `collapse` trims it, as xs:anyURI values are (XML Schema 2
 * §3.2.17); a NameID is an xs:string, matched exactly as signed.
 */
export function simpleText(element: Element, what: string, collapse = false): string {
  if (childElements(element).length > 0) refuse(`its ${what} is not simple text`);
  const content = element.textContent ?? '';
  const text = collapse ? content.trim() : content;
  if (text.trim() === '') refuse(`its ${what} is empty`);
  if (UNPRINTABLE.test(text)) refuse(`its ${what} holds characters that are not accepted`);
  return text;
}
