// Precise timings for bench/engine.sh and bench/pipeline.sh: one process, keep-alive connections, no
// process spawn between two polls. Prints one JSON line. Loopback only.
//   node timing.mjs switch  API KEY DEPLOYMENT_ID APPS_PORT HOST MARKER
//       POST /v1/deployments/{id}/rollback, then GET / on the apps listener with that Host, back to back,
//       until the body contains MARKER → {"ms", "post_ms", "id", "polls"}
//       Before the clock starts, the client's own HTTP code is warmed on a throwaway server of its own on
//       loopback (CLIENT_WARMUP=0: not): a fresh Node process otherwise spends 6–20 ms loading and compiling
//       its HTTP client on the first request, which is the bench's cost, not the platform's. No connection to
//       the platform is opened before the clock starts.
//   node timing.mjs deploy  API KEY JSON_BODY
//       POST /v1/deployments, then GET /v1/deployments/{id} until live (every 20 ms while queued or building,
//       back to back once deploying) → {"ms", "post_ms", "id", "polls"}
import http from "node:http";

const [mode, api, key, ...rest] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const TIMEOUT_MS = 120_000;

function request(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    if (body !== undefined) req.end(body); else req.end();
  });
}

const auth = { Authorization: `Bearer ${key}` };
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function fail(message) {
  console.error(`timing: ${message}`);
  process.exit(1);
}

/** Runs Node's HTTP client and server code once on a loopback server of this process, then closes it. */
async function warmClient() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end(JSON.stringify({ data: { id: "warm-up" } })));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  // the measured run's requests: a POST with the key, then GETs with a Host field, each on a new connection. A
  // Host field naming another host costs Node 10-17 ms of CPU the first time (measured here: 14 ms user CPU
  // between request() and the socket), so it is warmed too, three times, on fresh agents.
  const steps = [["POST", auth], ["GET", auth], ["GET", { Host: "warm-up.localhost:1" }],
    ["GET", { Host: "warm-up.localhost:2" }], ["GET", { Host: "warm-up.localhost:3" }]];
  for (const [method, headers] of steps) {
    const warmAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await new Promise((resolve, reject) => {
      const req = http.request(`http://127.0.0.1:${server.address().port}/`, { method, headers, agent: warmAgent }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
      });
      req.on("error", reject);
      req.end();
    });
    warmAgent.destroy();
  }
  await new Promise((r) => server.close(r));
}

async function post(path, body) {
  const r = await request(api + path, {
    method: "POST",
    headers: body === undefined ? auth : { ...auth, "Content-Type": "application/json" },
    body,
  });
  if (r.status !== 201) fail(`POST ${path} answered ${r.status}: ${r.body}`);
  return JSON.parse(r.body).data.id;
}

if (mode === "switch") {
  const [target, appsPort, host, marker] = rest;
  if (process.env.CLIENT_WARMUP !== "0") await warmClient();
  const t0 = now();
  const id = await post(`/v1/deployments/${target}/rollback`);
  const postMs = now() - t0;
  let polls = 0;
  for (;;) {
    const r = await request(`http://127.0.0.1:${appsPort}/`, { headers: { Host: host } }).catch(() => ({ body: "" }));
    polls++;
    if (r.body.includes(marker)) break;
    if (now() - t0 > TIMEOUT_MS) fail(`${host} never answered ${marker}; last: ${r.body.slice(0, 80)}`);
  }
  console.log(JSON.stringify({ ms: Math.round(now() - t0), post_ms: Math.round(postMs), id, polls }));
} else if (mode === "deploy") {
  const [body] = rest;
  const t0 = now();
  const id = await post("/v1/deployments", body);
  const postMs = now() - t0;
  let polls = 0;
  for (;;) {
    const r = await request(`${api}/v1/deployments/${id}`, { headers: auth });
    polls++;
    const status = r.status === 200 ? JSON.parse(r.body).data.status : `HTTP ${r.status}`;
    if (status === "live") break;
    if (status === "failed" || status.startsWith("HTTP")) fail(`deployment ${id} is ${status}`);
    if (now() - t0 > TIMEOUT_MS) fail(`deployment ${id} still ${status}`);
    if (status !== "deploying") await sleep(20);
  }
  console.log(JSON.stringify({ ms: Math.round(now() - t0), post_ms: Math.round(postMs), id, polls }));
} else {
  fail("usage: timing.mjs switch|deploy API KEY ...");
}
process.exit(0);
