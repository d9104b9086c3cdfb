// An OpenID4VCI 1.0 wallet on an independent protocol library: the OpenWallet Foundation's @openid4vc/openid4vci
// (Animo's oid4vc-ts) resolves the offer, fetches the issuer and authorization server metadata, takes the token
// (with the tx_code when the offer asks for one), gets nonces, builds the key proofs and requests, parses each
// answer, and sends the notifications; nothing of badged's code. What comes back is checked with other
// libraries: the ldp_vc with Digital Bazaar's @digitalbazaar/vc and the issuer's published key (verify.mjs), the
// VC-JWTs with jose (panva) and the issuer's published JWKS, with OB 3.0's registered claims. It claims every
// configuration the offer lists with one access token and checks each copy is bound to its own key
// (credentialSubject.id = its did:jwk), then tries the refusals: through the library where it can make the bad
// request, with a raw fetch where it refuses to (an unknown configuration, a 1 MB proof). On an offer that asks for
// a tx_code it first sends the token request without one (the library's OAuth client, as a wallet that has not yet
// asked its user), then the right one with the same code, and a wrong one with a fresh code. Its first claim's proof
// is signed with the fully-specified alg Ed25519 (RFC 9864), the others with EdDSA.
// Input (env): OFFER (the openid-credential-offer:// link), TX_CODE (when the offer asks for one), and those of
// verify.mjs. Output: one JSON object.
import { createHash, randomBytes } from 'node:crypto';
import { load, local, fail, verifyLdp } from './verify.mjs';

const jose = await load('jose');
const { Openid4vciClient, setGlobalConfig } = await load('@openid4vc/openid4vci');
const { clientAuthenticationAnonymous } = await load('@openid4vc/oauth2');
const { OFFER, TX_CODE, BASE_PUBLIC } = process.env;
// The library takes only https issuers, as the spec says; the Go tests' public base is http://badged.test.
setGlobalConfig({ allowInsecureUrls: BASE_PUBLIC.startsWith('http:') });
const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

// The holder: an Ed25519 key named by its did:jwk; proofs name it by kid (the DID URL).
const { privateKey, publicKey } = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' });
const jwk = await jose.exportJWK(publicKey);
const did = 'did:jwk:' + Buffer.from(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).toString('base64url');
const signer = { method: 'did', didUrl: did + '#0', alg: 'EdDSA' };
const signerEd25519 = { ...signer, alg: 'Ed25519' }; // RFC 9864's name of the same signature

// client is the library's wallet whose proofs are signed with signingKey (another key than the one the proof names
// makes the "other key" refusal).
function client(signingKey) {
  return new Openid4vciClient({ callbacks: {
    fetch: (url, init) => fetch(local(String(url)), init),
    hash: (data, alg) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
    generateRandom: (n) => new Uint8Array(randomBytes(n)),
    clientAuthentication: clientAuthenticationAnonymous(),
    signJwt: async (_signer, { header, payload }) =>
      ({ jwt: await new jose.SignJWT(payload).setProtectedHeader(header).sign(signingKey), signerJwk: jwk }),
  } });
}
const wallet = client(privateKey);

const out = { did, claimed: {}, refusals: {}, txCode: {} };
const offer = await wallet.resolveCredentialOffer(OFFER);
const issuer = offer.credential_issuer;
const meta = await wallet.resolveIssuerMetadata(issuer);
out.version = meta.originalDraftVersion; // the library's reading of the metadata: V1 is OpenID4VCI 1.0 final
if (meta.credentialIssuer.credential_issuer !== issuer) fail('the metadata names another issuer');
out.proofAlgs = Object.fromEntries(Object.entries(meta.credentialIssuer.credential_configurations_supported)
  .map(([id, c]) => [id, c.proof_types_supported?.jwt?.proof_signing_alg_values_supported]));
out.txCodeAsked = Boolean(offer.grants[PRE].tx_code);
const txCode = out.txCodeAsked ? (TX_CODE || fail('the offer asks for a tx_code')) : undefined;
const tokenOf = (o = offer, tx = txCode) => wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer: o, issuerMetadata: meta, txCode: tx });
// tokenRefusal runs a token request that must be refused and sums up the refusal as the library read it.
async function tokenRefusal(request) {
  try {
    await request();
  } catch (e) {
    if (!e.errorResponse) throw e;
    return { status: e.response.status, error: e.errorResponse.error, description: e.errorResponse.error_description };
  }
  fail('a token request that must be refused was answered');
}
if (out.txCodeAsked) {
  // A wallet that sends the code before asking its user: the library's own refusal to do so is in its offer
  // method, so its OAuth client sends the request (the same form, without tx_code).
  out.txCode.missing = await tokenRefusal(() => wallet.oauth2Client.retrievePreAuthorizedCodeAccessToken({
    authorizationServerMetadata: meta.authorizationServers[0], preAuthorizedCode: offer.grants[PRE]['pre-authorized_code'],
    resource: issuer }));
}
const at = (await tokenOf()).accessTokenResponse.access_token; // the same code: a missing tx_code left it usable
if (out.txCode.missing) {
  out.txCode.rightAfterMissing = true;
  // A wrong tx_code, on a fresh code of the same offer (not yet used: no credential was claimed).
  const again = await wallet.resolveCredentialOffer(OFFER);
  const wrong = txCode === '000000' ? '111111' : '000000';
  out.txCode.wrong = await tokenRefusal(() => tokenOf(again, wrong));
}

const nonce = async () => (await wallet.requestNonce({ issuerMetadata: meta })).c_nonce;
// claim asks for a configuration with one jwt proof; the options make the refusals.
async function claim(cfg, { n, by = wallet, proofMeta = meta, accessToken = at, proofSigner = signer } = {}) {
  const { jwt } = await by.createCredentialRequestJwtProof({ issuerMetadata: proofMeta, credentialConfigurationId: cfg,
    signer: proofSigner, nonce: n ?? await nonce(), issuedAt: new Date() });
  const r = await wallet.retrieveCredentials({ issuerMetadata: meta, credentialConfigurationId: cfg, proofs: { jwt: [jwt] }, accessToken });
  r.proofAlg = jose.decodeProtectedHeader(jwt).alg; // what the library put in the proof it sent
  return r;
}
// refused makes a claim that must fail and sums up the refusal as the library read it.
async function refused(cfg, opts) {
  try {
    await claim(cfg, opts);
  } catch (e) {
    const r = e.response ?? fail('not a refusal of the issuer: ' + e);
    return { status: r.response.status, error: r.credentialErrorResponseResult?.data?.error,
      wwwAuthenticate: r.response.headers.get('www-authenticate'), authError: r.wwwAuthenticate?.[0]?.error };
  }
  fail('a claim that must be refused was answered');
}
// raw sends a credential request the library will not build.
async function raw(body) {
  const res = await fetch(local(meta.credentialIssuer.credential_endpoint), { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + at }, body: JSON.stringify(body) });
  return { status: res.status, error: (await res.json().catch(() => ({}))).error };
}

// The refusals first: nothing they try may be written, so every configuration is still claimable after them.
const cfgs = offer.credential_configuration_ids;
const elsewhere = { ...meta, credentialIssuer: { ...meta.credentialIssuer, credential_issuer: 'https://elsewhere.example' } };
const otherKey = (await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
out.refusals.other_key = await refused(cfgs[0], { by: client(otherKey) });
out.refusals.other_aud = await refused(cfgs[0], { proofMeta: elsewhere });
out.refusals.made_up_nonce = await refused(cfgs[0], { n: 'made-up' });
out.refusals.bad_token = await refused(cfgs[0], { accessToken: 'not-a-token' });
out.refusals.unknown_configuration = await raw({ credential_configuration_id: 'OpenBadgeCredential_unknown',
  proofs: { jwt: [(await wallet.createCredentialRequestJwtProof({ issuerMetadata: meta, credentialConfigurationId: cfgs[0],
    signer, nonce: await nonce() })).jwt] } });
out.refusals.big_proof = await raw({ credential_configuration_id: cfgs[0], proofs: { jwt: ['A'.repeat(1 << 20)] } });
try {
  await tokenOf();
  fail('the replayed code was taken');
} catch (e) {
  if (!e.errorResponse) throw e;
  out.refusals.replayed_code = { status: e.response.status, error: e.errorResponse.error };
}

// Every configuration: claimed, parsed by the library, verified here. The second reuses the first's nonce once.
const jwks = jose.createRemoteJWKSet(new URL(local(issuer + '/jwks')));
let firstNonce;
for (const cfg of cfgs) {
  const conf = meta.credentialIssuer.credential_configurations_supported[cfg] ?? fail('the offer names an unknown configuration ' + cfg);
  if (firstNonce) out.refusals.used_nonce ??= await refused(cfg, { n: firstNonce });
  const n = await nonce();
  const proofSigner = firstNonce ? signer : signerEd25519;
  firstNonce ??= n;
  const r = await claim(cfg, { n, proofSigner });
  const c = r.credentialResponse.credentials[0].credential;
  let got;
  if (conf.format === 'jwt_vc_json') got = await verifyJWT(c, conf);
  else got = { ...await verifyLdp(c), credential: c };
  got.format = conf.format;
  got.proofAlg = r.proofAlg;
  got.notification = (await wallet.sendNotification({ issuerMetadata: meta, accessToken: at,
    notification: { notificationId: r.credentialResponse.notification_id, event: 'credential_accepted' } })).response.status;
  out.claimed[cfg] = got;
}

// verifyJWT checks a VC-JWT with the issuer's published JWKS (the header's kid names the key, a URL under the
// issuer that answers it; the jwk the header carries is not trusted) and OB 3.0's registered claims.
async function verifyJWT(c, conf) {
  const { payload, protectedHeader } = await jose.jwtVerify(c, jwks, { issuer, subject: did,
    algorithms: conf.credential_signing_alg_values_supported });
  if (!protectedHeader.kid?.startsWith(issuer + '/')) fail('the kid is not a key of the issuer: ' + protectedHeader.kid);
  const byKid = await (await fetch(local(protectedHeader.kid))).json();
  if (byKid.kid !== protectedHeader.kid) fail('the kid does not answer its key');
  const seconds = (t) => Math.floor(Date.parse(t) / 1000);
  if (payload.jti !== payload.id) fail('jti is not the credential id');
  if (payload.nbf !== seconds(payload.validFrom)) fail('nbf is not validFrom');
  if (payload.validUntil !== undefined && payload.exp !== seconds(payload.validUntil)) fail('exp is not validUntil');
  if ((payload.issuer.id ?? payload.issuer) !== payload.iss) fail('iss is not the issuer id');
  return { verified: true, alg: protectedHeader.alg, sub: payload.sub, subject: payload.credentialSubject.id, id: payload.jti,
    status: payload.credentialStatus, exp: payload.exp, nbf: payload.nbf };
}
console.log(JSON.stringify(out));
