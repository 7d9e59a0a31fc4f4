// Sort a table by the column whose header was clicked: numbers numerically, text by locale; empty last.
(function () {
  function key(cell) { return cell ? cell.getAttribute("data-sort") || "" : ""; }
  function sortBy(table, column, header) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var numeric = rows.every(function (row) { var k = key(row.cells[column]); return k === "" || !isNaN(Number(k)); });
    rows.sort(function (a, b) {
      var x = key(a.cells[column]), y = key(b.cells[column]);
      if (x === "" || y === "") { return (x === "") - (y === ""); }
      var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.querySelector("button").addEventListener("click", function () { sortBy(table, column, header); });
    });
  });
})();
