// A webhook receiver for bench/webhooks.sh: answers 200 on /fast at once and on /slow after SLOW_MS,
// counts the requests /slow got, and for each distinct webhook-id on /fast records the time from the event's payload timestamp (written
// in the transaction of the state change) to its arrival here. Prints the latencies (ms) as JSON on SIGTERM.
import http from "node:http";
import fs from "node:fs";

const port = Number(process.argv[2]);
const out = process.argv[3];
const slowMs = Number(process.env.SLOW_MS || 2000);
const seen = new Map();
let slow = 0;
const nowMs = () => performance.timeOrigin + performance.now();

// "2026-11-22T02:31:04.123456Z" → epoch milliseconds with the microseconds kept
function parseMicros(iso) {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso);
  const frac = (m[2] || "0").padEnd(6, "0").slice(0, 6);
  return Date.parse(m[1] + "Z") + Number(frac) / 1000;
}

http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const arrived = nowMs();
    if (req.method === "GET") {
      res.end(String(seen.size)); // how many distinct events /fast has got
      return;
    }
    if (req.url === "/slow") {
      slow++;
      setTimeout(() => res.end(), slowMs);
      return;
    }
    const id = req.headers["webhook-id"];
    if (!seen.has(id)) {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      seen.set(id, { type: body.type, ms: arrived - parseMicros(body.timestamp) });
    }
    res.end();
  });
}).listen(port, "127.0.0.1", () => console.log("receiver listening on " + port));

process.on("SIGTERM", () => {
  fs.writeFileSync(out, JSON.stringify({ slow, events: [...seen.values()] }));
  process.exit(0);
});
