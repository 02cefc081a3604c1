/* global window, document, SimpleWebAuthnBrowser */
// Passkeys on /login (sign in: a button, and autofill in the user name field), /login/second-factor (a passkey after
// the password: a button), /login/upstream/link (the proof of an account: a button) and /account (register). A same-origin
// file because the pages' CSP allows no inline script; it needs @simplewebauthn/browser's bundle loaded before it.
// The server checks everything: this only carries options and answers between it and the authenticator.
(function () {
  var webauthn = SimpleWebAuthnBrowser;
  // The issuer's path (https://auth.example.com/tenant behind a proxy that strips /tenant): whatever comes before
  // /assets/passkeys.js in this script's own URL, '' at the root. The server's paths are its routes' (/login/passkey,
  // the sign-in's redirect); the browser reaches them under this path.
  var script = document.currentScript;
  var basePath = script ? new URL(script.src, window.location.href).pathname.replace(/\/assets\/passkeys\.js$/, '') : '';

  function url(path) {
    return path.charAt(0) === '/' && path.charAt(1) !== '/' ? basePath + path : path;
  }

  // The CSRF token of the page's (first) form: the same for every form of the session.
  function csrfToken(container) {
    var field = container.querySelector('input[name="_csrf"]');
    return field ? field.value : '';
  }

  function post(path, token, body) {
    return fetch(url(path), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': token },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) {
          var failure = new Error(json.error_description || json.error || String(response.status));
          failure.code = json.error;
          throw failure;
        }
        return json;
      });
    });
  }

  function show(element, text) {
    element.textContent = text;
    element.hidden = false;
  }

  // A failed ceremony: the page's own sentence, in its language, alone. The browser's (or a refusal's) message says
  // what went wrong in English whatever the page's language: it goes to the console, for whoever debugs, never into
  // the sentence.
  function showFailure(element, error) {
    show(element, element.getAttribute('data-failed'));
    if (window.console) window.console.warn('passkey ceremony failed:', error && error.name, error && error.message);
  }

  // A cancelled or timed-out prompt is the user's choice, not an error worth a message.
  function cancelled(error) {
    return error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
  }

  // `path`: /login/passkey (a passkey alone) or /login/second-factor/passkey (after the password); options at path/options.
  function signIn(path, useBrowserAutofill) {
    var message = document.getElementById('passkey_error');
    var token = csrfToken(document);
    return post(path + '/options', token, {})
      .then(function (optionsJSON) {
        return webauthn.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: useBrowserAutofill });
      })
      .then(function (response) {
        return post(path, token, { response: response });
      })
      .then(function (result) {
        window.location.assign(url(result.redirect));
      })
      .catch(function (error) {
        // Autofill runs unasked: a browser that refuses it for this page (SecurityError) has nothing to tell the user.
        if (cancelled(error) || (useBrowserAutofill && error && error.name === 'SecurityError')) return;
        showFailure(message, error);
      });
  }

  // The button with this id, shown when the browser has WebAuthn, starts a ceremony at `path`; false when none is shown.
  function setUpButton(id, path) {
    var button = document.getElementById(id);
    if (!button) return false;
    if (!webauthn.browserSupportsWebAuthn()) {
      button.hidden = true;
      return false;
    }
    button.hidden = false;
    button.addEventListener('click', function () {
      signIn(path, false);
    });
    return true;
  }

  function setUpSignIn() {
    if (!setUpButton('passkey_sign_in', '/login/passkey')) return;
    // WebAuthn conditional mediation: the browser lists this site's passkeys in the user name field's suggestions.
    webauthn.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (supported) signIn('/login/passkey', true);
    });
  }

  function setUpRegistration() {
    var form = document.getElementById('passkey_register');
    if (!form) return;
    var message = document.getElementById('passkey_register_error');
    if (!webauthn.browserSupportsWebAuthn()) {
      show(message, message.getAttribute('data-unsupported'));
      return;
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var token = csrfToken(form);
      var name = form.querySelector('input[name="name"]').value;
      var current = form.querySelector('input[name="current"]');
      post('/account/passkeys/options', token, { current: current ? current.value : '' })
        .then(function (optionsJSON) {
          return webauthn.startRegistration({ optionsJSON: optionsJSON });
        })
        .then(function (response) {
          return post('/account/passkeys', token, { name: name, response: response });
        })
        .then(function () {
          window.location.assign(url('/account'));
        })
        .catch(function (error) {
          // access_denied: the password or the recent sign-in was not enough; the server's sentence, in the page's
          // language, says which (the only refusal whose text is ours, not the browser's or a library's).
          if (error && error.code === 'access_denied') {
            if (current) current.value = '';
            show(message, error.message);
          } else if (cancelled(error)) show(message, message.getAttribute('data-cancelled'));
          else showFailure(message, error);
        });
    });
  }

  setUpSignIn();
  setUpButton('passkey_second_factor', '/login/second-factor/passkey');
  setUpButton('passkey_link', '/login/upstream/link/passkey');
  setUpRegistration();
})();
