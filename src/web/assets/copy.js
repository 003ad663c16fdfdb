// "Copy" buttons (an enhancement: without JavaScript the field itself can be
// selected and copied). A button with data-copy="ID" copies the value of the
// field with that id and says so in its own text for a moment.
(function () {
  'use strict';
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var field = document.getElementById(button.getAttribute('data-copy'));
      if (!field) return;
      var label = button.textContent;
      var done = function () {
        button.textContent = 'Copied';
        setTimeout(function () {
          button.textContent = label;
        }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          field.select();
        });
      } else {
        field.select();
        done();
      }
    });
  });
})();
