'use strict';
// Starts a built app once, as the runtime will, and waits for an HTTP answer below 500 on $PORT.
// usage: node start-check.cjs <timeout ms> <program> [args...]   (the token ${PORT} in an arg is the port)
// Exit 0: it answered. Exit 1: the last line says why.
const { spawn } = require('node:child_process');
const http = require('node:http');
const net = require('node:net');

const timeout = Number(process.argv[2]);
const argv = process.argv.slice(3);
const REPORT = 'slipway-start-check: ';

function fail(why) {
  process.stderr.write(REPORT + why + '\n');
  process.exit(1);
}

const finder = net.createServer();
finder.on('error', (e) => fail('no free port: ' + e.message));
finder.listen(0, '127.0.0.1', () => {
  const port = finder.address().port;
  finder.close(() => start(port));
});

function start(port) {
  const args = argv.map((a) => a.split('${PORT}').join(String(port)));
  const child = spawn(args[0], args.slice(1), {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PORT: String(port) },
    detached: true,
  });
  let done = false;
  const finish = (ok, why) => {
    if (done) return;
    done = true;
    try { process.kill(-child.pid, 'SIGKILL'); } catch (e) { /* already gone */ }
    if (ok) {
      process.stdout.write(REPORT + why + '\n');
      process.exit(0);
    }
    fail(why);
  };
  child.on('error', (e) => finish(false, 'it could not be started: ' + e.message));
  child.on('exit', (code, signal) => finish(false, 'it ' + (signal ? 'was killed by ' + signal : 'exited with code ' + code)
    + ' before it answered HTTP'));
  const deadline = Date.now() + timeout;
  let last = 'nothing listened on the port';
  const probe = () => {
    if (done) return;
    if (Date.now() > deadline) return finish(false, 'it did not answer HTTP within ' + timeout / 1000 + ' s (' + last + ')');
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 5000 }, (res) => {
      res.resume();
      if (res.statusCode < 500) return finish(true, 'it answered HTTP ' + res.statusCode);
      last = 'it answered HTTP ' + res.statusCode;
      setTimeout(probe, 100);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e) => { if (e.code !== 'ECONNREFUSED') last = e.message; setTimeout(probe, 100); });
  };
  probe();
}
