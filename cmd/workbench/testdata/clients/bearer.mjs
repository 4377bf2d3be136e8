// Preloaded into the conformance suite (node --import ./bearer.mjs): the suite's server scenarios cannot
// send a credential, so this adds "Authorization: Bearer $WORKBENCH_BEARER" to every request whose origin
// is that of $WORKBENCH_MCP_URL, whether made with fetch (the SDK's transport) or with undici's request.
import { Agent, setGlobalDispatcher } from 'undici';

const token = process.env.WORKBENCH_BEARER;
const target = process.env.WORKBENCH_MCP_URL;
if (!token || !target) {
  console.error('bearer.mjs: WORKBENCH_BEARER and WORKBENCH_MCP_URL must be set');
  process.exit(2);
}
const origin = new URL(target).origin;

function withAuth(headers) {
  if (Array.isArray(headers)) {
    const out = [];
    for (let i = 0; i < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() !== 'authorization') out.push(headers[i], headers[i + 1]);
    }
    return [...out, 'authorization', `Bearer ${token}`];
  }
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() !== 'authorization') out[k] = v;
  }
  out.authorization = `Bearer ${token}`;
  return out;
}

setGlobalDispatcher(
  new Agent().compose((dispatch) => (opts, handler) => {
    const o = typeof opts.origin === 'string' ? opts.origin : opts.origin?.origin;
    return dispatch(o === origin ? { ...opts, headers: withAuth(opts.headers) } : opts, handler);
  }),
);
