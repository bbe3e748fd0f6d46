/* global document, window */
/**
 * Gives each form holding a Sift marker the attributes sift.js looks for (WordPress's comment and
 * login forms have no hook for attributes on <form>). Runs before sift.js, which scans the page
 * when it has loaded; also shows a sentence when sift.js cannot reach Sift.
 */
(function () {
  "use strict";
  var markers = document.querySelectorAll(".sift-challenge[data-sift-site-key]");
  Array.prototype.forEach.call(markers, function (marker) {
    var form = marker.closest("form");
    if (!form) return;
    form.setAttribute("data-sift-site-key", marker.getAttribute("data-sift-site-key"));
    form.setAttribute("data-sift-url", marker.getAttribute("data-sift-url"));
    form.addEventListener("vendor-challenge-error", function () {
      var note = form.querySelector(".sift-unreachable");
      if (!note) {
        note = document.createElement("p");
        note.className = "sift-unreachable";
        note.setAttribute("role", "alert");
        form.appendChild(note);
      }
      note.textContent = (window.siftMark && window.siftMark.unreachable) || "";
    });
  });
})();
