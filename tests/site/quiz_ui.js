/* quiz_ui.js — tests/site/quiz_ui.sh adds this to a copy of the quiz page: after the page's own
 * scripts it does what a reader does (types an id, presses Enter, types answers or clicks a choice)
 * and writes what the page showed into <pre id="quiz-ui">, a line each, for the shell to compare
 * with grading/quiz's own output:
 *   blank: MESSAGE | questions N   a blank id and Enter in the id field: the message tied to the field
 *   blank-below: PX                how far below the id field that message starts (-1: none shown)
 *   long: MESSAGE | questions N    the same for the too long id given as long=
 *   asked: N | message: MESSAGE    the id given as student= and Enter in the id field
 *   qN radio X: LABEL | qN text    how each question is answered: a radio button (value X) or typed
 *   score: LINE                    the answers= put in, then Enter in the first typed answer
 *   qN shows: LINE                 what the page shows under question N (its verdict box), a line each
 *   qN box: LINE                   all of question N's box, a line each
 * Its settings come in the page's #fragment: lesson=NN&student=ID&long=ID&answers=FILE TEXT.
 * A key press made by a script never makes the browser submit a form (only a real one does), so this
 * sees Enter only where the page handles it itself, as quiz.js does (a browser does not submit on
 * Enter in a radio button). */
"use strict";
addEventListener("load", () => setTimeout(() => {
  const cfg = new URLSearchParams(location.hash.slice(1));
  const out = [];
  const id = document.getElementById("quiz-student");
  const enter = (target) => {
    target.focus();
    target.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, bubbles: true, cancelable: true }));
  };
  const questions = () => document.querySelectorAll("#quiz-questions .quiz-q").length;
  const message = () => { // the message the id field names (aria-describedby), when one is shown
    const m = document.getElementById(id.getAttribute("aria-describedby") || "-");
    return m && m.getClientRects().length > 0 && m.textContent.trim() !== "" ? m : null;
  };
  const said = (m) => (m ? m.textContent.trim().replace(/\s+/g, " ") : "(none)");
  document.getElementById("quiz-lesson").value = cfg.get("lesson");

  id.value = "   ";
  enter(id);
  const blank = message();
  out.push(`blank: ${said(blank)} | questions ${questions()}`);
  out.push(`blank-below: ${blank ? Math.round(blank.getBoundingClientRect().top - id.getBoundingClientRect().bottom) : -1}`);
  id.value = cfg.get("long");
  enter(id);
  out.push(`long: ${said(message())} | questions ${questions()}`);
  id.value = cfg.get("student");
  enter(id);
  out.push(`asked: ${questions()} | message: ${said(message())}`);

  for (const q of document.querySelectorAll("#quiz-questions .quiz-q")) {
    const n = q.id.replace(/^q-/, "");
    for (const r of q.querySelectorAll('input[type="radio"]'))
      out.push(`q${n} radio ${r.value}: ${r.labels.length ? r.labels[0].textContent.trim() : "(no label)"}`);
    if (q.querySelector('input:not([type="radio"])')) out.push(`q${n} text`);
  }

  let first = null;
  for (const line of (cfg.get("answers") || "").split("\n")) {
    const a = line.match(/^(\d+): *(.*)$/);
    const q = a && document.getElementById("q-" + a[1]);
    if (!q) continue;
    const choice = [...q.querySelectorAll('input[type="radio"]')].find((r) => r.value === a[2]);
    const typed = q.querySelector('input:not([type="radio"])');
    if (choice) choice.click();
    else if (typed) {
      typed.value = a[2];
      first = first || typed;
    }
  }
  if (first) enter(first);
  const score = document.getElementById("quiz-score");
  out.push(`score: ${score ? score.textContent.trim() : "(none)"}`);

  for (const q of document.querySelectorAll("#quiz-questions .quiz-q")) {
    const n = q.id.replace(/^q-/, "");
    const v = q.querySelector(".verdict");
    for (const line of (v ? v.innerText : "").split("\n")) if (line.trim()) out.push(`q${n} shows: ${line}`);
    for (const line of q.innerText.split("\n")) if (line.trim()) out.push(`q${n} box: ${line}`);
  }
  const pre = document.createElement("pre");
  pre.id = "quiz-ui";
  pre.textContent = out.join("\n") + "\n";
  document.body.append(pre);
}, 100));
