/* global window, document, HTMLFormElement */
// OAuth 2.0 Form Post Response Mode: submit the response form as soon as the page has loaded. A same-origin
// file because the CSP allows no inline script; without JavaScript the page's Continue button does the same.
window.addEventListener('load', function () {
  var form = document.getElementById('redirect_form');
  if (form) HTMLFormElement.prototype.submit.call(form);
});
