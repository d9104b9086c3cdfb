// An OpenID4VCI 1.0 wallet written against the protocol, on jose (panva) for every key and signature operation:
// nothing of badged's code. It follows an offer URI to the metadata, claims every configuration the offer lists
// with one access token, verifies each VC-JWT with the issuer's published JWKS, checks the binding to its own key,
// then tries the refusals. Input (env): OFFER_URI, BASE_PUBLIC and BASE_REAL (the test server: URLs of the public
// base are fetched from the real one), WALLET_MODULES (node_modules holding jose). Output: one JSON object.
import { createRequire } from 'node:module';

const require = createRequire(process.env.WALLET_MODULES + '/');
const jose = await import(require.resolve('jose'));
const { OFFER_URI, BASE_PUBLIC, BASE_REAL } = process.env;
const local = (u) => u.replace(BASE_PUBLIC, BASE_REAL);
const fail = (msg) => { throw new Error(msg); };
const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

async function call(url, init = {}) {
  const res = await fetch(local(url), init);
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* empty */ }
  return { status: res.status, headers: res.headers, body };
}

const out = { claimed: {}, refusals: {} };
const { privateKey, publicKey } = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' });
const jwk = await jose.exportJWK(publicKey);
const did = 'did:jwk:' + Buffer.from(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).toString('base64url');
out.did = did;

const offer = (await call(OFFER_URI)).body ?? fail('no offer');
const issuer = offer.credential_issuer;
const u = new URL(issuer);
const meta = (await call(`${u.origin}/.well-known/openid-credential-issuer${u.pathname}`)).body;
if (meta.credential_issuer !== issuer) fail('metadata names another issuer');
const as = (await call(`${u.origin}/.well-known/oauth-authorization-server${u.pathname}`)).body;
if (!as.grant_types_supported.includes(PRE)) fail('no pre-authorized code grant');

async function token(code) {
  return call(as.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: PRE, 'pre-authorized_code': code }) });
}
const code = offer.grants[PRE]['pre-authorized_code'];
const tok = await token(code);
if (tok.status !== 200) fail('token: ' + JSON.stringify(tok.body));
const at = tok.body.access_token;

const nonce = async () => (await call(meta.nonce_endpoint, { method: 'POST' })).body.c_nonce;
async function proof({ aud = issuer, n, key = privateKey, header = {} } = {}) {
  return new jose.SignJWT(n === undefined ? { aud } : { aud, nonce: n })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'openid4vci-proof+jwt', jwk, ...header }).setIssuedAt().sign(key);
}
async function credential(cfg, jwt, bearer = at) {
  return call(meta.credential_endpoint, { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + bearer },
    body: JSON.stringify({ credential_configuration_id: cfg, proofs: { jwt: [jwt] } }) });
}

// The refusals first, on a fresh token's offer (nothing they try may be written).
const otherKey = (await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
const cfg0 = offer.credential_configuration_ids[0];
const refusals = {
  other_key: await credential(cfg0, await proof({ n: await nonce(), key: otherKey })),
  other_aud: await credential(cfg0, await proof({ n: await nonce(), aud: 'https://elsewhere.example' })),
  made_up_nonce: await credential(cfg0, await proof({ n: 'made-up' })),
  unknown_configuration: await credential('OpenBadgeCredential_unknown', await proof({ n: await nonce() })),
  bad_token: await credential(cfg0, await proof({ n: await nonce() }), 'not-a-token'),
  replayed_code: await token(code),
  big_proof: await credential(cfg0, 'A'.repeat(1 << 20)),
};
for (const [k, r] of Object.entries(refusals)) {
  out.refusals[k] = { status: r.status, error: r.body?.error, wwwAuthenticate: r.headers.get('www-authenticate') };
}

const jwks = jose.createRemoteJWKSet(new URL(local(issuer + '/jwks')));
for (const cfg of offer.credential_configuration_ids) {
  const conf = meta.credential_configurations_supported[cfg] ?? fail('offer names an unknown configuration ' + cfg);
  const r = await credential(cfg, await proof({ n: await nonce() }));
  if (r.status !== 200) fail(`${cfg}: ${r.status} ${JSON.stringify(r.body)}`);
  const c = r.body.credentials[0].credential;
  const got = { format: conf.format };
  if (conf.format === 'jwt_vc_json') {
    const { payload, protectedHeader } = await jose.jwtVerify(c, jwks, { issuer });
    got.alg = protectedHeader.alg;
    got.sub = payload.sub;
    got.subject = payload.credentialSubject.id;
    got.id = payload.jti;
    got.status = payload.credentialStatus;
    got.verified = true;
  } else {
    got.subject = c.credentialSubject.id;
    got.id = c.id;
    got.status = c.credentialStatus;
    got.cryptosuite = c.proof?.cryptosuite;
    got.credential = c;
  }
  got.notification = (await call(meta.notification_endpoint, { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + at },
    body: JSON.stringify({ notification_id: r.body.notification_id, event: 'credential_accepted' }) })).status;
  out.claimed[cfg] = got;
}
console.log(JSON.stringify(out));
