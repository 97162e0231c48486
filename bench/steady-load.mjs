// A steady request loop for bench/upgrade.sh: GET / on the apps listener with a Host header, RATE requests a
// second on one keep-alive connection (a new one after an error), for SECONDS. Prints one JSON line: requests,
// failed, the longest gap between two answered requests, and the distinct bodies' first words (the app process's id).
//   node steady-load.mjs APPS_PORT HOST RATE SECONDS
import http from "node:http";

const [port, host, rate, seconds] = process.argv.slice(2);
const every = 1000 / Number(rate);
const end = performance.now() + Number(seconds) * 1000;
let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let requests = 0, failed = 0, lastOk = performance.now(), longestGap = 0;
const apps = new Set();

function get() {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/", headers: { Host: host }, agent, timeout: 2000 }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(res.statusCode === 200 ? body : null));
      res.on("error", () => resolve(null));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(null));
  });
}

while (performance.now() < end) {
  const started = performance.now();
  requests++;
  const body = await get();
  if (body === null) {
    failed++;
    agent.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  } else {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastOk);
    lastOk = now;
    apps.add(body.split(" ")[0]);
  }
  const wait = every - (performance.now() - started);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
console.log(JSON.stringify({ requests, failed, longest_gap_ms: Math.round(longestGap), apps: [...apps] }));
