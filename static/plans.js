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
