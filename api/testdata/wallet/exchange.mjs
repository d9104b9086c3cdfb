// A VC-API wallet written against the protocol, on Digital Bazaar's libraries (@digitalbazaar/vc, the
// Ed25519Signature2020 suite the DCC Learner Credential Wallet signs with, the eddsa-rdfc-2022 cryptosuite):
// nothing of badged's code. It claims one offer as the LCW's deep link does (the signed presentation posted to
// vc_request_url with the link's challenge, Ed25519Signature2020, no domain) and another as a VC-API exchange
// ({} → DIDAuthentication request → presentation with its challenge and domain, eddsa-rdfc-2022), verifies each
// credential it gets with @digitalbazaar/vc and the issuer's published key, checks the binding to its own did:key,
// and tries a few refusals. Input (env): LCW_REQUEST (the offer's lcwRequest), EXCHANGE_URL (another offer's
// exchangeUrl), BASE_PUBLIC and BASE_REAL (URLs of the public base are fetched from the test server),
// CONTEXTS_FILE (the Open Badges contexts, {url: document}: no npm package ships them), WALLET_MODULES.
// Output: one JSON object.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(process.env.WALLET_MODULES + '/');
const load = async (name) => import(require.resolve(name));
const vc = await load('@digitalbazaar/vc');
const { Ed25519Signature2020 } = await load('@digitalbazaar/ed25519-signature-2020');
const { Ed25519VerificationKey2020 } = await load('@digitalbazaar/ed25519-verification-key-2020');
const { DataIntegrityProof } = await load('@digitalbazaar/data-integrity');
const { cryptosuite: eddsaRdfc2022 } = await load('@digitalbazaar/eddsa-rdfc-2022-cryptosuite');
const Ed25519Multikey = await load('@digitalbazaar/ed25519-multikey');
const credentialsContext = require('@digitalbazaar/credentials-context');
const ed25519Context = require('ed25519-signature-2020-context');

const { LCW_REQUEST, EXCHANGE_URL, BASE_PUBLIC, BASE_REAL, CONTEXTS_FILE } = process.env;
const local = (u) => u.replace(BASE_PUBLIC, BASE_REAL);
const fail = (msg) => { throw new Error(msg); };

// Offline document loader: the libraries' own contexts, the Open Badges contexts from the test, and the issuer's
// documents fetched from the server (a verification method id answers the method, with the Multikey context).
const contexts = new Map([...credentialsContext.contexts, ...ed25519Context.contexts,
  ...Object.entries(JSON.parse(readFileSync(CONTEXTS_FILE, 'utf8')))]);
async function documentLoader(url) {
  if (contexts.has(url)) return { contextUrl: null, documentUrl: url, document: contexts.get(url) };
  if (url.startsWith(BASE_PUBLIC)) {
    const [doc, frag] = url.split('#');
    const res = await fetch(local(doc), { headers: { accept: 'application/json' } });
    if (!res.ok) fail(`${url}: ${res.status}`);
    const controller = await res.json();
    if (!frag) return { contextUrl: null, documentUrl: url, document: controller };
    const vm = controller.verificationMethod.find((m) => m.id === url) ?? fail('no verification method ' + url);
    return { contextUrl: null, documentUrl: url, document: { '@context': 'https://w3id.org/security/multikey/v1', ...vm } };
  }
  fail('the wallet loads nothing else: ' + url);
}

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

async function verified(credential) {
  const res = await vc.verifyCredential({ credential, documentLoader,
    suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
    checkStatus: async () => ({ verified: true }) }); // the status list is checked by the Go test
  if (!res.verified) fail('credential does not verify: ' + JSON.stringify(res.error ?? res.results, null, 1));
  return { verified: true, subject: credential.credentialSubject.id, id: credential.id, status: credential.credentialStatus,
    issuer: credential.issuer.id ?? credential.issuer, cryptosuite: credential.proof?.cryptosuite ?? credential.proof?.[0]?.cryptosuite };
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
out.lcw = await verified(lcw.body.verifiableCredential[0]);
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
out.vcapi = await verified(finish.body.verifiablePresentation.verifiableCredential[0]);
const again = await post(endpoint, { verifiablePresentation: vp });
out.refusals.replayed_exchange = { status: again.status, type: again.body?.type };
console.log(JSON.stringify(out));
