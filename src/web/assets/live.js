// Live progress on a report's page (the only script of the workspace; every
// other flow works without JavaScript). It polls the page's progress address
// with slowing intervals, updates the scan runs in place, and when every run
// has finished it swaps in the freshly rendered page content without a reload.
(function () {
  'use strict';
  var root = document.querySelector('[data-progress-url]');
  if (!root || !window.fetch) return;
  var url = root.getAttribute('data-progress-url');
  var delay = 1000;
  var status = document.getElementById('live-status');

  function text(el, value) {
    if (el && el.textContent !== value) el.textContent = value;
  }

  function update(data) {
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
    });
    text(document.getElementById('work-state'), data.work_label);
  }

  function refreshPage() {
    return fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var fresh = doc.getElementById('report-content');
        var current = document.getElementById('report-content');
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      });
  }

  function poll() {
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) {
        if (r.status === 429) {
          delay = 1000 * (Number(r.headers.get('Retry-After')) || 10);
          return null;
        }
        return r.ok ? r.json() : null;
      })
      .then(function (data) {
        if (!data) {
          delay = Math.min(delay * 2, 30000);
          setTimeout(poll, delay);
          return;
        }
        update(data);
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
        delay = Math.min(delay * 2, 30000);
        setTimeout(poll, delay);
      });
  }
  text(status, 'Scans are running; this page updates by itself.');
  setTimeout(poll, delay);
})();
