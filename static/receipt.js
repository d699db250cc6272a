// The receipt's Print button: shown only when scripts run, it opens the browser's print
// dialog (where "Save as PDF" is one of the printers).
document.querySelectorAll("[data-print]").forEach((button) => {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
});
