// The private order page, improved when scripts run; the page is complete without it.
// - While the order waits (the page's `data-refresh-seconds`), reload it now and then, only
//   while the tab is visible and for at most ten minutes; the Refresh button does it by hand.
// - Next to each installation value, a Copy button (selecting the value also works). Its
//   words come from the page, in the page's language: the status line carries `data-copy`
//   and, for each value's id, `data-copy-label-ID` and `data-copied-ID`.
(function () {
  "use strict";
  var page = document.querySelector("[data-refresh-seconds]");
  if (page) {
    var seconds = parseInt(page.getAttribute("data-refresh-seconds"), 10) || 10;
    var key = "order-reloads:" + location.pathname;
    // Storage can be refused (private modes): then the reloads are not counted.
    var count = function (value) {
      try {
        if (value === undefined) {
          return parseInt(sessionStorage.getItem(key) || "0", 10);
        }
        sessionStorage.setItem(key, String(value));
      } catch (e) {
        return 0;
      }
      return value;
    };
    var done = count();
    if (done * seconds < 600) {
      var tick = function () {
        if (document.visibilityState === "visible") {
          count(done + 1);
          location.reload();
        } else {
          setTimeout(tick, seconds * 1000);
        }
      };
      setTimeout(tick, seconds * 1000);
    }
  }
  var status = document.getElementById("copy-status");
  var copy = status && status.getAttribute("data-copy");
  if (!navigator.clipboard || !copy) {
    return;
  }
  document.querySelectorAll("input.copy").forEach(function (input) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "secondary copy-button";
    button.textContent = copy;
    // On the buyer's page of several eSIMs each id carries its eSIM's prefix (`u2-`).
    var key = input.id.replace(/^u\d+-/, "");
    var label = status.getAttribute("data-copy-label-" + key);
    if (label) {
      button.setAttribute("aria-label", label);
    }
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(input.value).then(function () {
        status.textContent = status.getAttribute("data-copied-" + key) || "";
      });
    });
    input.insertAdjacentElement("afterend", button);
  });
})();
