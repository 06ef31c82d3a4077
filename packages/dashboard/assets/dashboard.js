/* Respire dashboard: optional auto-refresh and copy buttons. Pages work without them.
 * Polls the current URL at the interval the server put in <body data-poll-ms> (only when the
 * operator turned auto-refresh on), parses the server-rendered page with DOMParser and moves its
 * <main> and <footer> nodes in. Nothing here builds markup from strings. */
/* global document, window, fetch, DOMParser, navigator */
(function () {
  'use strict';
  // Copy buttons: hidden until this script runs; each copies the text shown in its payload's <pre>.
  function copyButtons(root) {
    Array.prototype.forEach.call(root.querySelectorAll('button.copy[data-copy]'), function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var payload = button.closest('.payload');
        var pre = payload && payload.querySelector('pre');
        if (!pre || !navigator.clipboard) return;
        navigator.clipboard.writeText(pre.textContent).then(
          function () {
            button.textContent = 'Copied';
          },
          function () {
            button.textContent = 'Copy failed';
          },
        );
      });
    });
  }
  copyButtons(document);

  var interval = Number(document.body && document.body.getAttribute('data-poll-ms'));
  if (!interval || interval < 2000) return;
  var busy = false;
  var timer;

  function say(text) {
    var state = document.querySelector('.poll-state');
    if (state) state.textContent = text;
  }

  function editing() {
    var active = document.activeElement;
    return !!active && active !== document.body && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(active.tagName);
  }

  function swap(next, selector) {
    var current = document.querySelector(selector);
    var fresh = next.querySelector(selector);
    if (!current || !fresh) return;
    current.replaceChildren.apply(
      current,
      Array.prototype.map.call(fresh.childNodes, function (node) {
        return document.importNode(node, true);
      }),
    );
  }

  function tick() {
    if (busy || document.hidden || editing()) return;
    busy = true;
    fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        // Signed out (a sign-in page, or a 401): keep this page as it is and stop polling.
        if (response.redirected || response.status === 401) {
          window.clearInterval(timer);
          say('Auto-refresh stopped: you are signed out. Reload the page to sign in again.');
          return null;
        }
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.text();
      })
      .then(function (html) {
        if (html === null) return;
        var next = new DOMParser().parseFromString(html, 'text/html');
        swap(next, 'main');
        swap(next, 'footer');
        copyButtons(document);
        say('Refreshed at ' + new Date().toLocaleTimeString());
      })
      .catch(function (error) {
        say('Auto-refresh failed (' + error.message + '); retrying.');
      })
      .finally(function () {
        busy = false;
      });
  }

  timer = window.setInterval(tick, interval);
})();
