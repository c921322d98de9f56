import { type KeyObject, X509Certificate, createHash, verify } from 'node:crypto';
import {
  type CanonicalizationOrTransformationAlgorithm,
  type HashAlgorithm,
  type SignatureAlgorithm,
  SignedXml,
} from 'xml-crypto';
import { type ParsedAssertion, XMLDSIG_NS } from './saml-document.js';
import { refuse } from './saml-refusal.js';
import { childElements } from './saml-xml.js';

const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
/** Exclusive XML Canonicalization 1.0, without comments. */
const EXCLUSIVE_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/**
 * SAML Core §5.4.4: the only transforms of an assertion's signature are the enveloped-signature
 * transform and exclusive canonicalization (§5.4.3), in that order, which is what identity
 * providers write. The "#WithComments" variants are refused: a same-document reference drops
 * comments anyway (XML Signature 1.1 §4.4.3.3), so they could only make the signed text differ from
 * what a reader sees (the comment-truncation attacks on NameID, CVE-2017-11427 and kin).
 */
const REQUIRED_TRANSFORMS = [ENVELOPED_SIGNATURE, EXCLUSIVE_C14N];

interface SignatureAlgorithmSpec {
  readonly hash: string;
  readonly keyType: 'rsa' | 'ec';
}

/**
 * RSA PKCS#1 v1.5 and ECDSA over SHA-256, SHA-384 and SHA-512 (RFC 9231 §2.3). SHA-1
 * (`xmldsig#rsa-sha1`), which xml-crypto 6 still accepts by default, and HMAC are not listed.
 * ECDSA signature values are r || s (XML Signature 1.1 §6.4.3).
 */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, SignatureAlgorithmSpec>> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': { hash: 'sha256', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': { hash: 'sha384', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': { hash: 'sha512', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256': { hash: 'sha256', keyType: 'ec' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384': { hash: 'sha384', keyType: 'ec' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512': { hash: 'sha512', keyType: 'ec' },
};

/** XML Signature 1.1 §6.2 and RFC 9231 §2.1; no SHA-1 (`xmldsig#sha1`). */
const DIGEST_ALGORITHMS: Readonly<Record<string, string>> = {
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384': 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
};

/** Verification only, with the trusted key alone, of the type the algorithm is for (no RSA URI over an EC key). */
function signatureAlgorithm(uri: string, spec: SignatureAlgorithmSpec): new () => SignatureAlgorithm {
  return class {
    getAlgorithmName = () => uri;
    getSignature(): string {
      throw new Error('verification only');
    }
    verifySignature(material: string, key: unknown, signatureValue: string): boolean {
      const publicKey = key as KeyObject;
      if (publicKey.asymmetricKeyType !== spec.keyType) return false;
      const signature = Buffer.from(signatureValue, 'base64');
      const data = Buffer.from(material, 'utf8');
      return spec.keyType === 'ec'
        ? verify(spec.hash, data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)
        : verify(spec.hash, data, publicKey, signature);
    }
  };
}

function digestAlgorithm(uri: string, hash: string): new () => HashAlgorithm {
  return class {
    getAlgorithmName = () => uri;
    getHash = (xml: string) => createHash(hash).update(xml, 'utf8').digest('base64');
  };
}

const SIGNATURE_ALGORITHM_CLASSES = Object.fromEntries(
  Object.entries(SIGNATURE_ALGORITHMS).map(([uri, spec]) => [uri, signatureAlgorithm(uri, spec)]),
);
const DIGEST_ALGORITHM_CLASSES = Object.fromEntries(
  Object.entries(DIGEST_ALGORITHMS).map(([uri, hash]) => [uri, digestAlgorithm(uri, hash)]),
);
const defaults = new SignedXml().CanonicalizationAlgorithms;
const TRANSFORM_CLASSES: Record<string, new () => CanonicalizationOrTransformationAlgorithm> = {
  [ENVELOPED_SIGNATURE]: defaults[ENVELOPED_SIGNATURE]!,
  [EXCLUSIVE_C14N]: defaults[EXCLUSIVE_C14N]!,
};

/** xml-crypto with only the accepted algorithms registered, so that nothing else can even be computed. */
function verifier(certificatePem: string): SignedXml {
  // The trusted issuer's certificate alone; a certificate in the signature's KeyInfo is never used.
  const signed = new SignedXml({ publicCert: new X509Certificate(certificatePem).publicKey, getCertFromKeyInfo: () => null });
  signed.SignatureAlgorithms = SIGNATURE_ALGORITHM_CLASSES;
  signed.HashAlgorithms = DIGEST_ALGORITHM_CLASSES;
  signed.CanonicalizationAlgorithms = TRANSFORM_CLASSES;
  return signed;
}

/** The one reference must name the assertion itself (SAML Core §5.4.2), with nothing but the accepted algorithms. */
function checkSignedInfo(signed: SignedXml, assertion: ParsedAssertion): void {
  if (signed.signatureAlgorithm === undefined || !Object.hasOwn(SIGNATURE_ALGORITHMS, signed.signatureAlgorithm)) {
    refuse('its signature algorithm is not accepted');
  }
  if (signed.canonicalizationAlgorithm !== EXCLUSIVE_C14N) refuse('its signature canonicalization is not accepted');
  const references = signed.getReferences();
  if (references.length !== 1) refuse('its signature does not have exactly one reference');
  const [reference] = references;
  if (reference!.uri !== `#${assertion.id}`) refuse('its signature does not reference the assertion');
  if (!Object.hasOwn(DIGEST_ALGORITHMS, reference!.digestAlgorithm)) refuse('its signature digest algorithm is not accepted');
  const transforms = reference!.transforms;
  if (transforms.length !== REQUIRED_TRANSFORMS.length || transforms.some((name, i) => name !== REQUIRED_TRANSFORMS[i])) {
    refuse('its signature transforms are not accepted');
  }
}

/**
 * Verifies the assertion's enveloped signature (SAML Core §5.4) with the trusted certificate
 * and returns the signed content: the canonical XML of the referenced assertion, as xml-crypto
 * digested it. The caller reads the assertion from that text only, never from the document as
 * received, so that what is checked is exactly what was signed ("see what is signed", XML
 * Signature Best Practices).
 */
export function signedAssertionXml(xml: string, assertion: ParsedAssertion, certificatePem: string): string {
  const signature = childElements(assertion.element, XMLDSIG_NS, 'Signature')[0] ?? refuse('it is not signed');
  const signed = verifier(certificatePem);
  try {
    signed.loadSignature(signature);
  } catch {
    refuse('its signature is malformed');
  }
  checkSignedInfo(signed, assertion);
  let valid: boolean;
  try {
    valid = signed.checkSignature(xml);
  } catch {
    valid = false;
  }
  if (!valid) refuse("its signature is not valid with its issuer's certificate");
  // checkSignature reloads the references from the SignedInfo it verified: check those.
  checkSignedInfo(signed, assertion);
  const [content, ...more] = signed.getSignedReferences();
  if (content === undefined || more.length > 0) refuse('its signature does not reference the assertion');
  return content;
}
