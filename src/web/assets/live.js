// Live progress on a report's page (the only script of the workspace; every
// other flow works without JavaScript). It polls the page's progress address
// with slowing intervals and updates the scan runs in place; each time more
// items have finished, it swaps in the freshly rendered live regions (the
// summary, the most common gaps, the people rows, the chart: elements with
// `data-live-region`), so each person's row changes as they finish; when
// every run has finished it swaps in the whole page content and removes the
// notices that only held while scans were running (`data-live-transient`).
// The filter form is outside the regions: typing in it is never interrupted.
// The status line says what the progress answer says (running, or waiting
// for a scan worker); while the progress cannot be read (the service answers
// 503 while its database is away) it says the progress is unknown, never that
// scans run.
(function () {
  'use strict';
  var root = document.querySelector('[data-progress-url]');
  if (!root || !window.fetch) return;
  var url = root.getAttribute('data-progress-url');
  var delay = 1000;
  var unknownText = root.getAttribute('data-unknown-text');

  function text(el, value) {
    if (el && el.textContent !== value) el.textContent = value;
  }

  function say(value) {
    text(document.getElementById('live-status'), value);
  }

  function update(data) {
    if (data.status_text) say(data.status_text);
    data.runs.forEach(function (run) {
      var item = document.getElementById('run-' + run.id);
      if (!item) return;
      text(item.querySelector('[data-field="status"]'), run.status_label);
      text(item.querySelector('[data-field="counts"]'), run.counts_label);
      var bar = item.querySelector('progress');
      if (bar) {
        bar.max = Math.max(1, run.requested);
        bar.value = run.finished;
      }
      item.setAttribute('data-status', run.status);
      if (data.waiting && (run.status === 'queued' || run.status === 'running')) item.setAttribute('data-waiting', 'true');
      else item.removeAttribute('data-waiting');
    });
  }

  function fetchPage() {
    return fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (html) {
        return html ? new DOMParser().parseFromString(html, 'text/html') : null;
      });
  }

  // Items finished when the page was rendered: the first poll that counts more refreshes the rows.
  var finishedSeen = Number(root.getAttribute('data-finished'));

  function refreshRegions() {
    return fetchPage().then(function (doc) {
      if (!doc) return;
      document.querySelectorAll('[data-live-region]').forEach(function (current) {
        var fresh = current.id ? doc.getElementById(current.id) : null;
        if (fresh) current.replaceWith(document.importNode(fresh, true));
      });
    });
  }

  function refreshPage() {
    return fetchPage().then(function (doc) {
      if (!doc) return;
      var fresh = doc.getElementById('report-content');
      var current = document.getElementById('report-content');
      if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      document.querySelectorAll('[data-live-transient]').forEach(function (el) {
        el.remove();
      });
    });
  }

  function poll() {
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) {
        if (r.status === 429) {
          delay = 1000 * (Number(r.headers.get('Retry-After')) || 10);
          return null;
        }
        if (!r.ok && unknownText) say(unknownText);
        return r.ok ? r.json() : null;
      })
      .then(function (data) {
        if (!data) {
          delay = Math.min(delay * 2, 30000);
          setTimeout(poll, delay);
          return;
        }
        update(data);
        var finished = data.runs.reduce(function (sum, run) {
          return sum + run.finished;
        }, 0);
        var changed = finished !== finishedSeen;
        finishedSeen = finished;
        if (changed && !data.done) refreshRegions();
        if (data.done) {
          // The fresh content replaces this status line too: announce on the new one.
          refreshPage().then(function () {
            text(document.getElementById('live-status'), 'All scans have finished. Results updated.');
          });
          return;
        }
        delay = Math.min(delay * 1.5, 5000);
        setTimeout(poll, delay);
      })
      .catch(function () {
        if (unknownText) say(unknownText);
        delay = Math.min(delay * 2, 30000);
        setTimeout(poll, delay);
      });
  }
  setTimeout(poll, delay);
})();
