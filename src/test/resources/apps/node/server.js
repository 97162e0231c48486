// A dependency-free test app. Listens on $PORT and answers `app:<VERSION>`.
// MODE=never-listen | exit-at-start | ignore-term changes how it behaves at start.
const http = require('http');
const { spawn } = require('child_process');

const version = process.env.VERSION || 'none';
const mode = process.env.MODE || '';

if (process.env.SECRET_TOKEN) console.log('connecting with token ' + process.env.SECRET_TOKEN);
console.log('starting version ' + version + ' pid ' + process.pid);

if (mode === 'exit-at-start') {
  console.error('fatal: missing configuration');
  process.exit(7);
}
if (mode === 'ignore-term') process.on('SIGTERM', () => console.log('ignoring SIGTERM'));

let child = null;
if (process.env.SPAWN_CHILD === '1') {
  child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

const releases = [];
let count = 0;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  switch (url.pathname) {
    case '/crash':
      res.end('crashing');
      console.error('crashing on request');
      setImmediate(() => process.exit(3));
      return;
    case '/headers':
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.headers));
      return;
    case '/env':
      res.end(String(process.env[url.searchParams.get('name')] ?? '<unset>'));
      return;
    case '/pid':
      res.end(String(process.pid));
      return;
    case '/count':
      res.end(String(++count));
      return;
    case '/say':
      console.log(url.searchParams.get('text'));
      res.end('said');
      return;
    case '/child':
      res.end(child ? String(child.pid) : 'none');
      return;
    case '/stream':
      // first chunk now, the last one only once /release is called: proves nothing buffers in between
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: first\n\n');
      releases.push(() => res.end('data: last\n\n'));
      return;
    case '/release':
      releases.splice(0).forEach(f => f());
      res.end('released');
      return;
    case '/echo': {
      const chunks = [];
      req.on('data', c => chunks.push(c));
      req.on('end', () => res.end(Buffer.concat(chunks)));
      return;
    }
    default:
      res.setHeader('content-type', 'text/plain');
      res.end('app:' + version);
  }
});

if (mode === 'never-listen') {
  setInterval(() => {}, 1000);
} else {
  server.listen(Number(process.env.PORT), () => console.log('listening on ' + process.env.PORT));
}
