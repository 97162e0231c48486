// Slipway dashboard: confirmations, the copy button, and following a log live. No framework, no network but this server.
"use strict";

document.addEventListener("submit", function (event) {
  var button = event.submitter;
  var message = button && button.getAttribute("data-confirm");
  if (message && !window.confirm(message)) event.preventDefault();
});

document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  var input = document.getElementById(button.getAttribute("data-copy"));
  input.select();
  var done = function () { button.textContent = "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, function () { if (document.execCommand("copy")) done(); });
  } else if (document.execCommand("copy")) {
    done();
  }
});

(function followLog() {
  var log = document.getElementById("log");
  if (!log || log.getAttribute("data-follow") !== "true" || !window.EventSource) return;
  var state = document.getElementById("log-state");
  var after = log.getAttribute("data-after");
  var source = new EventSource(log.getAttribute("data-stream") + (after ? "?after=" + encodeURIComponent(after) : ""));
  var pinned = function () { return log.scrollHeight - log.scrollTop - log.clientHeight < 40; };
  source.addEventListener("log", function (event) {
    var entry = JSON.parse(event.data);
    var stick = pinned();
    var li = document.createElement("li");
    li.className = "log-" + entry.level;
    var time = document.createElement("time");
    time.setAttribute("datetime", entry.timestamp);
    time.textContent = entry.timestamp.substring(11, 19);
    var level = document.createElement("span");
    level.className = "level";
    level.textContent = entry.level;
    var msg = document.createElement("span");
    msg.className = "msg";
    msg.textContent = entry.message;
    li.append(time, " ", level, " ", msg);
    log.appendChild(li);
    if (stick) log.scrollTop = log.scrollHeight;
  });
  source.addEventListener("end", function () {
    source.close();
    state.textContent = "finished";
    // the run ended while we watched: show its final fields (status, live address, times)
    if (log.getAttribute("data-finished") !== "true") window.setTimeout(function () { window.location.reload(); }, 300);
  });
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) state.textContent = "disconnected; reload to follow again";
    else state.textContent = "reconnecting…";
  };
})();
