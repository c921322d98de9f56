import type { Element } from '@xmldom/xmldom';
import { MAX_JTI_LENGTH } from './jwt-assertion.js';
import { refuse } from './saml-refusal.js';
import { descendantElements, parseXmlStrictly } from './saml-xml.js';

/** SAML Core §2.1 */
export const SAML_ASSERTION_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
/** XML Signature §4 */
export const XMLDSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/**
 * xs:ID (an NCName), in the ASCII range identity providers use; bounded, as it is stored.
 * Quotes and other characters that could reach an XPath expression are excluded by construction.
 */
const ASSERTION_ID = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** The attribute names XML Signature implementations resolve a same-document reference `#id` by. */
const ID_ATTRIBUTE_NAMES = new Set(['ID', 'Id', 'id']);

export interface ParsedAssertion {
  /** The `saml:Assertion` document element. */
  readonly element: Element;
  readonly id: string;
}

/**
 * A document that is one SAML 2.0 assertion (SAML Core §2.3.3) and nothing else: the document
 * element is `saml:Assertion`, Version 2.0, with an ID, and no other element is an assertion or
 * carries the same ID. Those two rules close the classic signature-wrapping layouts, where a
 * signed assertion is moved aside (into Advice, an Extensions element, a wrapper) for an
 * unsigned one to be read instead. `signatures` is how many `ds:Signature` elements the
 * document must have as children of the assertion: one as received, none in the signed
 * content (the enveloped-signature transform removed it), and none anywhere else.
 */
export function parseAssertionDocument(xml: string, signatures: 0 | 1): ParsedAssertion {
  const element = parseXmlStrictly(xml).documentElement!;
  if (element.namespaceURI !== SAML_ASSERTION_NS || element.localName !== 'Assertion') refuse('it is not a SAML 2.0 assertion');
  if (element.getAttribute('Version') !== '2.0') refuse('it is not a SAML 2.0 assertion');
  const id = element.getAttribute('ID') ?? '';
  if (!ASSERTION_ID.test(id) || id.length > MAX_JTI_LENGTH) refuse('its ID is missing or malformed');

  const elements = descendantElements(element);
  if (elements.filter((each) => each.localName === 'Assertion').length > 1) refuse('it holds more than one assertion');
  for (const each of elements) {
    if (each !== element && hasIdAttribute(each, id)) refuse('another element carries its ID');
  }
  const found = elements.filter((each) => each.namespaceURI === XMLDSIG_NS && each.localName === 'Signature');
  if (found.length !== signatures || found.some((signature) => signature.parentNode !== element)) {
    refuse(signatures === 1 ? 'it is not signed by exactly one signature of its own' : 'its signed content holds a signature');
  }
  return { element, id };
}

function hasIdAttribute(element: Element, id: string): boolean {
  const { attributes } = element;
  for (let i = 0; i < attributes.length; i++) {
    const attribute = attributes.item(i)!;
    if (ID_ATTRIBUTE_NAMES.has(attribute.localName ?? attribute.name) && attribute.value === id) return true;
  }
  return false;
}
