// A tenant's app with a volume at $VOLUME: it writes, reads and fills it, and reports what it got.
const http = require("http");
const fs = require("fs");
const path = require("path");
const dir = process.env.VOLUME || "/data";

function answer(res, status, body) {
  res.writeHead(status, {"content-type": "application/json"});
  res.end(JSON.stringify(body));
}

http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  const name = path.basename(url.searchParams.get("name") || "file");
  try {
    if (url.pathname === "/write") {
      fs.writeFileSync(path.join(dir, name), url.searchParams.get("value") || "");
      return answer(res, 200, {ok: true});
    }
    if (url.pathname === "/read") {
      return answer(res, 200, {value: fs.readFileSync(path.join(dir, name), "utf8")});
    }
    if (url.pathname === "/list") {
      return answer(res, 200, {files: fs.readdirSync(dir).filter(f => f !== "lost+found").sort()});
    }
    if (url.pathname === "/fill") {
      const chunk = Buffer.alloc(1024 * 1024, 7);
      const fd = fs.openSync(path.join(dir, "fill"), "w");
      let written = 0;
      try {
        for (let i = 0; i < 4096; i++) written += fs.writeSync(fd, chunk);
        return answer(res, 200, {error: null, written});
      } catch (e) {
        return answer(res, 200, {error: e.code, written});
      } finally {
        fs.closeSync(fd);
        fs.rmSync(path.join(dir, "fill"), {force: true});
      }
    }
    answer(res, 404, {});
  } catch (e) {
    answer(res, 200, {error: e.code || String(e)});
  }
}).listen(Number(process.env.PORT), "127.0.0.1");
