// Search for the static site: every word of the query scored over an index written beside it.
(function () {
  "use strict";
  var index = window.FRONTIER_INDEX || [];
  var form = document.getElementById("search-form");
  var list = document.getElementById("results");
  var none = document.getElementById("no-results");
  var query = new URLSearchParams(window.location.search).get("q") || "";
  form.elements.q.value = query;

  function score(doc, words) {
    return words.reduce(function (total, word) {
      return total + (doc.title.toLowerCase().indexOf(word) !== -1 ? 3 : 0) +
        (doc.text.indexOf(word) !== -1 ? 1 : 0);
    }, 0);
  }

  function show(text) {
    var words = text.toLowerCase().split(/\W+/).filter(function (w) { return w.length > 1; });
    var found = index.map(function (doc) { return [score(doc, words), doc]; })
      .filter(function (pair) { return pair[0] > 0; })
      .sort(function (a, b) { return b[0] - a[0] || (a[1].title < b[1].title ? -1 : 1); })
      .slice(0, 30);
    list.textContent = "";
    found.forEach(function (pair) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.className = "paper";
      link.href = pair[1].url;
      link.textContent = pair[1].title;
      var meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = " · " + (pair[1].date || "date unknown");
      item.appendChild(link);
      item.appendChild(meta);
      list.appendChild(item);
    });
    none.hidden = !(words.length && found.length === 0);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = form.elements.q.value;
    window.history.replaceState(null, "", "?q=" + encodeURIComponent(text));
    show(text);
  });
  if (query) show(query);
})();
