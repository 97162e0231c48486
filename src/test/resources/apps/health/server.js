// An app whose health check is /healthz, whose / always fails, and which falls sick on /sick until restarted.
const http = require("http");
let sick = false;
const id = String(Math.random());
http.createServer((req, res) => {
  if (req.url === "/healthz") { res.statusCode = sick ? 503 : 200; return res.end(sick ? "sick" : "ok"); }
  if (req.url === "/sick") { sick = true; return res.end("sick from now on"); }
  if (req.url === "/id") return res.end(id);
  res.statusCode = 500;
  res.end("the root path always fails");
}).listen(Number(process.env.PORT), "127.0.0.1");
