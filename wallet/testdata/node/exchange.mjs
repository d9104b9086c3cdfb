// A VC-API wallet written against the protocol, on Digital Bazaar's libraries (@digitalbazaar/vc, the
// Ed25519Signature2020 suite the DCC Learner Credential Wallet signs with, the eddsa-rdfc-2022 cryptosuite):
// nothing of badged's code. It claims one offer as the LCW's deep link does (the signed presentation posted to
// vc_request_url with the link's challenge, Ed25519Signature2020, no domain) and another as a VC-API exchange
// ({} → DIDAuthentication request → presentation with its challenge and domain, eddsa-rdfc-2022), verifies each
// credential it gets with @digitalbazaar/vc and the issuer's published key, checks the binding to its own did:key,
// and tries a few refusals. Input (env): LCW_REQUEST (the offer's lcwRequest), EXCHANGE_URL (another offer's
// exchangeUrl), BASE_PUBLIC and BASE_REAL (URLs of the public base are fetched from the test server),
// CONTEXTS_FILE and WALLET_MODULES (verify.mjs).
// Output: one JSON object.
import { load, local, fail, vc, DataIntegrityProof, eddsaRdfc2022, documentLoader, verifyLdp } from './verify.mjs';

const { Ed25519Signature2020 } = await load('@digitalbazaar/ed25519-signature-2020');
const { Ed25519VerificationKey2020 } = await load('@digitalbazaar/ed25519-verification-key-2020');
const Ed25519Multikey = await load('@digitalbazaar/ed25519-multikey');
const { LCW_REQUEST, EXCHANGE_URL } = process.env;

async function post(url, body) {
  const res = await fetch(local(url), { method: 'POST', headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* empty */ }
  return { status: res.status, body: json };
}

// The holder: one Ed25519 key, as Ed25519VerificationKey2020 (for Ed25519Signature2020) and as Multikey
// (for eddsa-rdfc-2022), named by its did:key.
const key2020 = await Ed25519VerificationKey2020.generate();
const did = 'did:key:' + key2020.fingerprint();
key2020.controller = did;
key2020.id = `${did}#${key2020.fingerprint()}`;
const multikey = await Ed25519Multikey.from(key2020.export({ publicKey: true, privateKey: true, includeContext: true }));
if (multikey.id !== key2020.id) fail('the Multikey names another verification method');

const suite2020 = () => new Ed25519Signature2020({ key: key2020 });
const suiteRdfc = () => new DataIntegrityProof({ signer: multikey.signer(), cryptosuite: eddsaRdfc2022 });
async function didAuth({ suite, challenge, domain, version }) {
  const presentation = vc.createPresentation({ holder: did, version });
  return vc.signPresentation({ presentation, suite, challenge, domain, documentLoader });
}

const out = { did, refusals: {} };

// 1. The LCW deep link (app/lib/credentialRequest.ts): a signed presentation posted as the body itself.
const link = new URL(LCW_REQUEST);
if (link.searchParams.get('auth_type') !== 'bearer') fail('the LCW needs auth_type=bearer');
const requestURL = link.searchParams.get('vc_request_url');
const lcwVP = await didAuth({ suite: suite2020(), challenge: link.searchParams.get('challenge'), version: 1.0 });
const lcw = await post(requestURL, lcwVP);
if (lcw.status !== 200) fail('deep link: ' + JSON.stringify(lcw));
if (!lcw.body.type?.includes('VerifiablePresentation')) fail('deep link: the answer is not a presentation');
out.lcw = await verifyLdp(lcw.body.verifiableCredential[0]);
const replay = await post(requestURL, lcwVP);
out.refusals.replayed_link = { status: replay.status, type: replay.body?.type };

// 2. The VC-API exchange (app/lib/exchanges.ts): {} → request → presentation with challenge and domain.
const start = await post(EXCHANGE_URL, {});
const vpr = start.body?.verifiablePresentationRequest ?? fail('no presentation request: ' + JSON.stringify(start));
const queries = [].concat(vpr.query);
if (!queries.some((q) => q.type === 'DIDAuthentication')) fail('no DIDAuthentication query');
const endpoint = vpr.interact?.service?.[0]?.serviceEndpoint ?? EXCHANGE_URL;
const wrongDomain = await post(endpoint, { verifiablePresentation: await didAuth({ suite: suiteRdfc(), challenge: vpr.challenge,
  domain: 'https://elsewhere.example' }) });
out.refusals.wrong_domain = { status: wrongDomain.status, type: wrongDomain.body?.type };
const madeUp = await post(endpoint, { verifiablePresentation: await didAuth({ suite: suiteRdfc(), challenge: 'made-up', domain: vpr.domain }) });
out.refusals.made_up_challenge = { status: madeUp.status, type: madeUp.body?.type };
const vp = await didAuth({ suite: suiteRdfc(), challenge: vpr.challenge, domain: vpr.domain });
const finish = await post(endpoint, { verifiablePresentation: vp });
if (finish.status !== 200) fail('exchange: ' + JSON.stringify(finish));
out.vcapi = await verifyLdp(finish.body.verifiablePresentation.verifiableCredential[0]);
const again = await post(endpoint, { verifiablePresentation: vp });
out.refusals.replayed_exchange = { status: again.status, type: again.body?.type };
console.log(JSON.stringify(out));
