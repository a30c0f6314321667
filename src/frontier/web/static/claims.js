// The static site has no server to filter claims: filter and sort the table in the page.
(function () {
  "use strict";
  var form = document.getElementById("claim-filters");
  var body = document.querySelector("#claims-table tbody");
  if (!form || !body || !document.body.dataset.static) return;
  var rows = Array.prototype.slice.call(body.rows);
  var fields = ["metric", "model", "hardware"];
  new URLSearchParams(window.location.search).forEach(function (value, key) {
    if (form.elements[key]) form.elements[key].value = value;
  });

  function matches(row) {
    return fields.every(function (name) {
      var want = form.elements[name].value.trim().toLowerCase();
      return row.dataset[name].toLowerCase().indexOf(want) !== -1;
    });
  }

  function byValue(descending) {
    return function (a, b) {
      var x = a.dataset.value, y = b.dataset.value;
      if (x === "" || y === "") return (x === "") - (y === "");
      return descending ? y - x : x - y;
    };
  }

  function apply() {
    var sort = form.elements.sort.value;
    var shown = rows.filter(matches);
    if (sort !== "newest") shown.sort(byValue(sort === "value_desc"));
    rows.forEach(function (row) { row.hidden = true; });
    shown.forEach(function (row) { row.hidden = false; body.appendChild(row); });
    document.getElementById("claim-count").textContent = String(shown.length);
  }

  form.addEventListener("input", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
  apply();
})();
