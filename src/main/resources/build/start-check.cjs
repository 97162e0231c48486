'use strict';
// Starts a built app once, as the runtime will, and waits for an HTTP answer below 500 on $PORT.
// usage: node start-check.cjs <timeout ms> <program> [args...]   (the token ${PORT} in an arg is the port)
// Exit 0: it answered ("slipway-start-check: <how>"). Exit 1: the last line says why, as
// "slipway-start-check: <kind>: <why>", kind one of exited, wrong-port, no-answer, error.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');

const timeout = Number(process.argv[2]);
const argv = process.argv.slice(3);
const REPORT = 'slipway-start-check: ';

function fail(kind, why) {
  process.stderr.write(REPORT + kind + ': ' + why + '\n');
  process.exit(1);
}

const finder = net.createServer();
finder.on('error', (e) => fail('error', 'no free port: ' + e.message));
finder.listen(0, '127.0.0.1', () => {
  const port = finder.address().port;
  finder.close(() => start(port));
});

// The TCP ports the process tree under `root` listens on: its sockets' inodes matched against the LISTEN rows
// of /proc/<pid>/net/tcp and tcp6. Empty where /proc cannot be read.
function listening(root) {
  const parent = new Map();
  for (const name of safe(() => fs.readdirSync('/proc'), [])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = safe(() => fs.readFileSync('/proc/' + name + '/stat', 'utf8'), '');
    const m = /\) \S (\d+)/.exec(stat);
    if (m) parent.set(Number(name), Number(m[1]));
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) if (tree.has(ppid) && !tree.has(pid)) { tree.add(pid); grew = true; }
  }
  const sockets = new Set();
  for (const pid of tree) {
    for (const fd of safe(() => fs.readdirSync('/proc/' + pid + '/fd'), [])) {
      const m = /^socket:\[(\d+)\]$/.exec(safe(() => fs.readlinkSync('/proc/' + pid + '/fd/' + fd), ''));
      if (m) sockets.add(m[1]);
    }
  }
  const ports = new Set();
  for (const table of ['tcp', 'tcp6']) {
    for (const line of safe(() => fs.readFileSync('/proc/' + root + '/net/' + table, 'utf8'), '').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length >= 10 && cols[3] === '0A' && sockets.has(cols[9])) ports.add(parseInt(cols[1].split(':').pop(), 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

function safe(f, fallback) {
  try { return f(); } catch (e) { return fallback; }
}

function start(port) {
  const args = argv.map((a) => a.split('${PORT}').join(String(port)));
  const child = spawn(args[0], args.slice(1), {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PORT: String(port) },
    detached: true,
  });
  let done = false;
  const finish = (kind, why) => {
    if (done) return;
    done = true;
    try { process.kill(-child.pid, 'SIGKILL'); } catch (e) { /* already gone */ }
    if (kind === 'answered') {
      process.stdout.write(REPORT + why + '\n');
      process.exit(0);
    }
    fail(kind, why);
  };
  child.on('error', (e) => finish('error', 'it could not be started: ' + e.message));
  child.on('exit', (code, signal) => finish('exited', 'it ' + (signal ? 'was killed by ' + signal : 'exited with code ' + code)
    + ' before it answered HTTP'));
  const deadline = Date.now() + timeout;
  let last = 'nothing listened on the port';
  let elsewhereSince = 0;
  let nextLook = Date.now() + 1000;
  // listening on other ports for 2 s while nothing answers on $PORT: it ignores $PORT, and waiting longer changes nothing
  const wrongPort = () => {
    if (Date.now() < nextLook) return false;
    nextLook = Date.now() + 500;
    const ports = listening(child.pid);
    if (ports.length === 0 || ports.includes(port)) { elsewhereSince = 0; return false; }
    if (elsewhereSince === 0) { elsewhereSince = Date.now(); return false; }
    if (Date.now() - elsewhereSince < 2000) return false;
    finish('wrong-port', 'it listens on port ' + ports.join(', ') + ', not on $PORT (' + port + '): make it listen on the port in '
      + 'the PORT environment variable, e.g. port: Number(process.env.PORT) || ' + ports[0]);
    return true;
  };
  const probe = () => {
    if (done) return;
    if (Date.now() > deadline) return finish('no-answer', 'it did not answer HTTP within ' + timeout / 1000 + ' s (' + last + ')');
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 5000 }, (res) => {
      res.resume();
      if (res.statusCode < 500) return finish('answered', 'it answered HTTP ' + res.statusCode);
      last = 'it answered HTTP ' + res.statusCode;
      setTimeout(probe, 100);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e) => {
      if (e.code !== 'ECONNREFUSED') last = e.message;
      else if (wrongPort()) return;
      setTimeout(probe, 100);
    });
  };
  probe();
}
