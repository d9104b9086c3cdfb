// What both test wallets share: the packages under WALLET_MODULES, the mapping of the public base to the test
// server, and the check of an ldp_vc with Digital Bazaar's @digitalbazaar/vc against the key the issuer publishes.
// Input (env): WALLET_MODULES, BASE_PUBLIC and BASE_REAL (URLs of the public base are fetched from the real one),
// CONTEXTS_FILE (the Open Badges contexts, {url: document}: no npm package ships them).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

export const require = createRequire(process.env.WALLET_MODULES + '/');
export const load = async (name) => import(require.resolve(name));
const { BASE_PUBLIC, BASE_REAL, CONTEXTS_FILE } = process.env;
export const local = (u) => u.replace(BASE_PUBLIC, BASE_REAL);
export const fail = (msg) => { throw new Error(msg); };

export const vc = await load('@digitalbazaar/vc');
export const { DataIntegrityProof } = await load('@digitalbazaar/data-integrity');
export const { cryptosuite: eddsaRdfc2022 } = await load('@digitalbazaar/eddsa-rdfc-2022-cryptosuite');
const credentialsContext = require('@digitalbazaar/credentials-context');
const ed25519Context = require('ed25519-signature-2020-context');

// Offline document loader: the libraries' own contexts, the Open Badges contexts from the test, and the issuer's
// documents fetched from the server (a verification method id answers the method, with the Multikey context).
const contexts = new Map([...credentialsContext.contexts, ...ed25519Context.contexts,
  ...Object.entries(JSON.parse(readFileSync(CONTEXTS_FILE, 'utf8')))]);
export async function documentLoader(url) {
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

// verifyLdp checks an ldp_vc's eddsa-rdfc-2022 proof with the issuer's published key (the status list is the Go
// test's to check) and sums up what the Go test asserts.
export async function verifyLdp(credential) {
  const res = await vc.verifyCredential({ credential, documentLoader,
    suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
    checkStatus: async () => ({ verified: true }) });
  if (!res.verified) fail('credential does not verify: ' + JSON.stringify(res.error ?? res.results, null, 1));
  return { verified: true, subject: credential.credentialSubject.id, id: credential.id, status: credential.credentialStatus,
    issuer: credential.issuer.id ?? credential.issuer, cryptosuite: credential.proof?.cryptosuite ?? credential.proof?.[0]?.cryptosuite };
}
