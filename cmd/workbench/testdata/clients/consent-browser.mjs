// The "browser" mcp-remote opens for its OAuth flow (run as $BROWSER by the opener it uses:
// `node consent-browser.mjs AUTHORIZATION_URL`). It signs in to the portal with the one-time link in
// $WORKBENCH_SIGNIN_LINK, allows the consent, and opens the redirect to mcp-remote's callback, as the
// user's browser would. It writes what it did to $WORKBENCH_BROWSER_LOG, one JSON line, and exits 0 when
// the callback took the code.
import { appendFileSync } from 'node:fs';
import { consent, signIn } from './consent.mjs';

const logFile = process.env.WORKBENCH_BROWSER_LOG;
function note(v) {
  if (logFile) appendFileSync(logFile, JSON.stringify(v) + '\n');
}

try {
  const url = process.argv[2];
  if (!url) throw new Error('no URL to open');
  const jar = await signIn(process.env.WORKBENCH_SIGNIN_LINK ?? '');
  const back = await consent(url, jar);
  // mcp-remote may start its callback server only after the browser was opened (a person takes
  // longer than this to press Allow): retry a refused connection for a bounded time.
  let res;
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      res = await fetch(back, { redirect: 'manual' });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the callback ${back.origin}${back.pathname} never answered: ${err?.cause?.code ?? err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await res.text();
  if (res.status >= 400) throw new Error(`the callback ${back.origin}${back.pathname} answered HTTP ${res.status}`);
  const opened = new URL(url);
  note({ ok: true, authorization: opened.origin + opened.pathname, resource: opened.searchParams.get('resource'),
    callback: back.origin + back.pathname, iss: back.searchParams.get('iss'), status: res.status });
} catch (err) {
  note({ ok: false, error: String(err?.stack ?? err) });
  console.error(`consent-browser.mjs: ${err?.stack ?? err}`);
  process.exit(1);
}
