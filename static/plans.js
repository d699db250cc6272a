// A daily plan's day picker (templates/shop/_choice_card.html): picking a duration shows its
// price as the card's price at once, and the card's link leads to that duration's page.
// Without this script the form still opens the chosen duration's plan page.
"use strict";
document.addEventListener("change", function (event) {
  var radio = event.target;
  if (!(radio instanceof HTMLInputElement) || radio.type !== "radio") return;
  var form = radio.closest("form[data-day-picker]");
  if (!form) return;
  var price = form.querySelector("[data-chosen-price]");
  if (price && radio.dataset.price) price.textContent = radio.dataset.price;
  var link = form.querySelector("[data-chosen-link]");
  if (link && radio.dataset.page) link.setAttribute("href", radio.dataset.page);
});

// The plan page's number of eSIMs (templates/shop/plan.html): the total and the button show
// what that many cost, and only that many travellers' rows show. Without this script the
// payment page shows the total, and rows beyond the number chosen are left out.
function showQuantity(select) {
  var form = select.form;
  var option = select.options[select.selectedIndex];
  if (!form || !option) return;
  var total = form.querySelector("[data-total-out]");
  if (total && option.dataset.total) total.textContent = option.dataset.total;
  var button = form.querySelector("[data-continue-out]");
  if (button && option.dataset.continue) button.textContent = option.dataset.continue;
  var chosen = Number(select.value);
  form.querySelectorAll("[data-traveller]").forEach(function (row) {
    row.hidden = Number(row.dataset.traveller) > chosen;
  });
}
document.addEventListener("change", function (event) {
  var select = event.target;
  if (select instanceof HTMLSelectElement && select.hasAttribute("data-quantity")) {
    showQuantity(select);
  }
});
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("select[data-quantity]").forEach(showQuantity);
});
