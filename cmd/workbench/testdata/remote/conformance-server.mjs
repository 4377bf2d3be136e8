// A reference remote MCP server written with the official TypeScript SDK to the descriptions of the
// conformance suite's server scenarios (@modelcontextprotocol/conformance, pinned in
// testdata/clients): the test_* tools, json_schema_2020_12_tool, the test:// resources and template,
// the test_* prompts and their completions, logging and resource subscriptions; and one tool of its
// own, test_structured_content, with an output schema. The gateway test
// (cmd/workbench/toolset_conformance_test.go) connects it as a connector, serves it whole through a
// toolset and runs the suite against the toolset's endpoint. It listens on 127.0.0.1 (port 0), asks
// every request for REMOTE_TOKEN as a Bearer token, and prints {"port": N}.
//
//   WORKBENCH_CLIENTS_DIR=…/testdata/clients REMOTE_TOKEN=… node conformance-server.mjs
//
// The HTTP endpoint and the SDK's loading are serve.mjs's.
import { serve, settings } from './serve.mjs';

const { token, load } = settings('conformance-server.mjs');
const { Server } = await load('@modelcontextprotocol/sdk/server/index.js');
const types = await load('@modelcontextprotocol/sdk/types.js');

// A 1×1 red PNG and a short silent WAV (44-byte header and two samples).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.concat([
  Buffer.from('RIFF', 'ascii'), Buffer.from([40, 0, 0, 0]), Buffer.from('WAVEfmt ', 'ascii'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data', 'ascii'), Buffer.from([4, 0, 0, 0, 0, 0, 0, 0]),
]).toString('base64');

const none = { type: 'object', properties: {} };
const TOOLS = [
  { name: 'test_simple_text', description: 'Answers a simple text.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_image_content', description: 'Answers an image.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_audio_content', description: 'Answers an audio clip.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_embedded_resource', description: 'Answers an embedded resource.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_multiple_content_types', description: 'Answers text, an image and a resource.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_error_handling', description: 'Always fails.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100.', inputSchema: none, annotations: { readOnlyHint: true } },
  {
    name: 'test_sampling', description: 'Asks the client to sample a reply to a prompt.', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation', description: 'Asks the user for a username and an email.', annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Asks with a default for every primitive type.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'test_elicitation_sep1330_enums', description: 'Asks with every kind of enum.', inputSchema: none, annotations: { readOnlyHint: true } },
  {
    // Not a scenario's: a structured result with its output schema, which a toolset lists and passes on.
    name: 'test_structured_content', description: 'Answers a structured weather reading.', inputSchema: none, annotations: { readOnlyHint: true },
    outputSchema: { type: 'object', properties: { temperature: { type: 'number' }, unit: { type: 'string' } }, required: ['temperature', 'unit'] },
  },
  {
    name: 'json_schema_2020_12_tool', description: 'Tool with JSON Schema 2020-12 features', annotations: { readOnlyHint: true },
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource.', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (a PNG).', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource whose updates a client may subscribe to.', mimeType: 'text/plain' },
];
const TEMPLATES = [
  { uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id.', mimeType: 'application/json' },
];
const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments.' },
  {
    name: 'test_prompt_with_arguments', description: 'A prompt with two arguments.',
    arguments: [{ name: 'arg1', description: 'First test argument', required: true }, { name: 'arg2', description: 'Second test argument', required: true }],
  },
  {
    name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image.' },
];
const WORDS = ['paris', 'park', 'party', 'test', 'testing', 'tested'];

const text = (t) => ({ type: 'text', text: t });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(server, name, args, extra) {
  switch (name) {
    case 'test_simple_text':
      return { content: [text('This is a simple text response for testing.')] };
    case 'test_image_content':
      return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
    case 'test_multiple_content_types':
      return {
        content: [
          text('Multiple content types test:'),
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
        ],
      };
    case 'test_tool_with_logging': {
      const log = (data) => extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'conformance', data } });
      await log('Tool execution started');
      await sleep(50);
      await log('Tool processing data');
      await sleep(50);
      await log('Tool execution completed');
      return { content: [text('Tool with logging executed successfully')] };
    }
    case 'test_structured_content': {
      const reading = { temperature: 21.5, unit: 'celsius' };
      return { content: [text(JSON.stringify(reading))], structuredContent: reading };
    }
    case 'test_error_handling':
      return { isError: true, content: [text('This tool intentionally returns an error for testing')] };
    case 'test_tool_with_progress': {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
        }
        if (progress < 100) await sleep(50);
      }
      return { content: [text('Tool with progress executed successfully')] };
    }
    case 'test_sampling': {
      const r = await extra.sendRequest({ method: 'sampling/createMessage', params: {
        messages: [{ role: 'user', content: text(String(args?.prompt ?? '')) }], maxTokens: 100,
      } }, types.CreateMessageResultSchema);
      return { content: [text(`LLM response: ${r.content?.text ?? ''}`)] };
    }
    case 'test_elicitation': {
      const r = await extra.sendRequest({ method: 'elicitation/create', params: {
        message: String(args?.message ?? ''),
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
          required: ['username', 'email'],
        },
      } }, types.ElicitResultSchema);
      return { content: [text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
    }
    case 'test_elicitation_sep1034_defaults': {
      const r = await extra.sendRequest({ method: 'elicitation/create', params: {
        message: 'Please review these defaults.',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
        },
      } }, types.ElicitResultSchema);
      return { content: [text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
    }
    case 'test_elicitation_sep1330_enums': {
      const r = await extra.sendRequest({ method: 'elicitation/create', params: {
        message: 'Please choose.',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
            legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
          },
        },
      } }, types.ElicitResultSchema);
      return { content: [text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
    }
  }
  throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

// subscribed are the timers of the resources each session subscribed to, by session and URI.
const subscribed = new Map();

function readResource(uri) {
  switch (uri) {
    case 'test://static-text':
      return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    case 'test://static-binary':
      return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
    case 'test://watched-resource':
      return { contents: [{ uri, mimeType: 'text/plain', text: `watched at ${new Date().toISOString()}` }] };
  }
  const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (m) {
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }] };
  }
  throw new types.McpError(types.ErrorCode.InvalidParams, `Resource not found: ${uri}`);
}

function getPrompt(name, args) {
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }] };
    case 'test_prompt_with_arguments':
      return { messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${args?.arg1 ?? ''}', arg2='${args?.arg2 ?? ''}'`) }] };
    case 'test_prompt_with_embedded_resource':
      return { messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: String(args?.resourceUri ?? ''), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ] };
    case 'test_prompt_with_image':
      return { messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: text('Please analyze the image above.') },
      ] };
  }
  throw new types.McpError(types.ErrorCode.InvalidParams, `Prompt not found: ${name}`);
}

function newServer() {
  const s = new Server({ name: 'conformance-reference', version: '1.0.0' }, {
    capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} },
  });
  s.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  s.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => call(s, req.params.name, req.params.arguments, { ...extra, _meta: req.params._meta }));
  s.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  s.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: TEMPLATES }));
  s.setRequestHandler(types.ReadResourceRequestSchema, async (req) => readResource(req.params.uri));
  s.setRequestHandler(types.SubscribeRequestSchema, async (req, extra) => {
    const timers = subscribed.get(extra.sessionId) ?? new Map();
    subscribed.set(extra.sessionId, timers);
    // A subscribed resource changes every 200 ms until the subscription ends: the subscriber hears of
    // it on its GET stream (an update sent before that stream opened is lost; the next one is not).
    if (!timers.has(req.params.uri)) {
      timers.set(req.params.uri, setInterval(() => s.sendResourceUpdated({ uri: req.params.uri }).catch(() => {}), 200));
    }
    return {};
  });
  s.setRequestHandler(types.UnsubscribeRequestSchema, async (req, extra) => {
    const timers = subscribed.get(extra.sessionId);
    clearInterval(timers?.get(req.params.uri));
    timers?.delete(req.params.uri);
    return {};
  });
  s.setRequestHandler(types.ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  s.setRequestHandler(types.GetPromptRequestSchema, async (req) => getPrompt(req.params.name, req.params.arguments));
  s.setRequestHandler(types.CompleteRequestSchema, async (req) => {
    const value = String(req.params.argument?.value ?? '');
    const values = WORDS.filter((w) => w.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  s.setRequestHandler(types.SetLevelRequestSchema, async () => ({}));
  return s;
}

await serve({
  token, load, newServer,
  onClose: (sessionId) => {
    for (const timer of subscribed.get(sessionId)?.values() ?? []) clearInterval(timer);
    subscribed.delete(sessionId);
  },
});
