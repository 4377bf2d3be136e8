// The user's browser, without a browser: a cookie jar that keeps each host's cookies to that host (as a
// browser does: a portal session on localhost is not sent to 127.0.0.1), the portal sign-in with a
// one-time link, the consent page's Allow, and an OAuth client provider that allows through them. Used by
// sdk-client.mjs, toolset-oauth-client.mjs and consent-browser.mjs.

// CookieJar keeps cookies per host name (host-only cookies; ports do not separate them).
export class CookieJar {
  #hosts = new Map();
  take(url, res) {
    const host = new URL(url).hostname;
    const cookies = this.#hosts.get(host) ?? new Map();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      if (i > 0) cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
    this.#hosts.set(host, cookies);
  }
  header(url) {
    const cookies = this.#hosts.get(new URL(url).hostname) ?? new Map();
    return [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(url) {
    return this.header(url) !== '';
  }
}

function htmlUnescape(s) {
  return s
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

// signIn opens the one-time sign-in link and returns the jar with the portal session. The link's host
// redirects portal pages to the public host; the session cookie is set where the link lands.
export async function signIn(link, jar = new CookieJar()) {
  let url = link;
  for (let hops = 0; hops < 5; hops++) {
    const res = await fetch(url, { headers: { Cookie: jar.header(url) }, redirect: 'manual' });
    await res.text();
    jar.take(url, res);
    if (res.headers.getSetCookie().length > 0) return jar;
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || !location) throw new Error(`sign-in link answered HTTP ${res.status} without a session cookie`);
    url = new URL(location, url).href;
  }
  throw new Error('the sign-in link redirected too often');
}

// consent is what the user's browser does with an authorization URL: follow the server's redirects
// (a loopback alias sends the browser to the public host, where the session is), open the consent
// page with the portal session and press Allow. It returns the URL the server redirected to, with the
// code, and the consent page's URL.
export async function consent(url, jar) {
  let pageURL = new URL(url);
  let page;
  for (let hops = 0; ; hops++) {
    page = await fetch(pageURL, { headers: { Cookie: jar.header(pageURL) }, redirect: 'manual' });
    const location = page.headers.get('location');
    if (page.status < 300 || page.status > 399 || !location) break;
    await page.text();
    const next = new URL(location, pageURL);
    if (next.pathname !== '/oauth/authorize' || hops >= 3) {
      throw new Error(`consent page: HTTP ${page.status} to ${next} (is the browser signed in on ${next.host}?)`);
    }
    pageURL = next;
  }
  const html = await page.text();
  if (page.status !== 200) {
    throw new Error(`consent page: HTTP ${page.status} ${html.slice(0, 500)}`);
  }
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    form.append(htmlUnescape(m[1]), htmlUnescape(m[2]));
  }
  if (!form.has('csrf_token')) throw new Error(`the consent page has no form: ${html.slice(0, 500)}`);
  form.append('decision', 'allow');
  const origin = pageURL.origin;
  const res = await fetch(new URL('/oauth/authorize', origin), {
    method: 'POST',
    headers: { Cookie: jar.header(pageURL), Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  const location = res.headers.get('location');
  if (res.status < 300 || res.status > 399 || !location) {
    throw new Error(`consent POST: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
  }
  const back = new URL(location, origin);
  if (back.searchParams.get('error')) {
    throw new Error(`authorization error ${back.searchParams.get('error')}: ${back.searchParams.get('error_description') ?? ''}`);
  }
  if (!back.searchParams.get('code')) throw new Error(`no code in ${back}`);
  return back;
}

// BrowserlessProvider is an OAuthClientProvider whose "browser" is fetch with the portal session: it
// opens the consent page and allows, and keeps the code that the redirect carries. It implements no
// state(): the SDK then sends none, as most clients built on it do.
export class BrowserlessProvider {
  redirect = 'http://127.0.0.1:53682/callback';
  jar;
  client;
  saved;
  verifier;
  code;
  authorizationURL;
  authorizationResponse;
  constructor(jar) {
    this.jar = jar;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: 'Workbench compatibility (TypeScript SDK)',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    this.authorizationURL = new URL(url);
    const back = await consent(url, this.jar);
    this.authorizationResponse = back;
    if (back.origin + back.pathname !== this.redirect) throw new Error(`consent redirected to ${back}, not to ${this.redirect}`);
    this.code = back.searchParams.get('code');
  }
}
