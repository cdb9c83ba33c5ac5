/* quiz.js — the quiz page: grading/quiz's own program (quiz-wasm.js, run by wasi.js) asks and judges;
 * this file only shows its questions, collects the answers as an answers file and shows its verdicts.
 * A question the program asks with lettered choices gets a radio button per choice, made from the
 * lines the program prints; Enter in a field does what its form's button does.
 * quiz.html?lesson=04&student=alice[&answers=FILE TEXT] fills the form (and submits) from the URL;
 * the page then sets data-quiz-state="graded" on <body> (tests/site/quiz_page.sh drives it this way;
 * tests/site/quiz_ui.js types, clicks and presses Enter as a reader does). */
"use strict";

let quizModule = null;
// Everything runs synchronously: the module is small enough to compile on the main thread, so the page
// is complete (questions, verdicts) when its load event fires.
function quiz(args, answers) {
  if (!quizModule) {
    const bin = atob(QUIZ_WASM_BASE64);
    const buf = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    quizModule = new WebAssembly.Module(buf);
  }
  return runWasi(quizModule, ["quiz", ...args], answers === undefined ? {} : { "answers.txt": answers });
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function setState(s) { document.body.dataset.quizState = s; }

// grading/quiz's rule for ids (normalise_id in grading/quizzes/quiz.c): the spaces around an id and
// its case do not count, and what is left must be 1 to ID_MAX bytes of UTF-8 without a control
// character. The page refuses a blank id itself, because the program's message for one speaks of its
// --student option; any other id goes to the program, and a refusal of it is shown where the id is typed.
const ID_MAX = 64; // QUIZ_ID_MAX in grading/quizzes/quiz.c: tests/site/quiz_ui.sh checks they agree
const BLANK = /^[ \t\n\v\f\r]*$/; // C's isspace, what normalise_id drops (not JavaScript's wider \s)
const BLANK_ID = `Type your student id first: your numbers are drawn from it. Any id of 1 to ${ID_MAX} bytes ` +
  "without control characters will do (its case and the spaces around it do not count: Ann is ann); " +
  "use the one your instructor has for you.";

function idProblem(text) { // the message under the id field; "" clears it
  const input = document.getElementById("quiz-student"), err = document.getElementById("quiz-student-error");
  err.textContent = text;
  err.hidden = text === "";
  if (text) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

// One question of the answers file --questions prints: its "N. TEXT" line, a line "   x) CHOICE" per
// choice, and a line "   (WHAT TO TYPE)" ("a letter" for a choice).
function questionBox(n, lines) {
  const text = lines[0].replace(/^\d+\. /, "");
  const choices = [];
  let hint = "";
  for (const line of lines.slice(1)) {
    const c = line.match(/^ +([a-z])\) (.*)$/), h = line.match(/^ +\((.*)\)$/);
    if (c) choices.push({ letter: c[1], text: c[2] });
    else if (h) hint = h[1];
  }
  const q = el("div", { class: "quiz-q", id: "q-" + n, role: "group", "aria-labelledby": "q-text-" + n });
  q.dataset.question = text; // grade() leaves it out of the working: it is right here
  q.append(el("p", { class: "quiz-text", id: "q-text-" + n }, lines[0]));
  if (hint === "a letter" && choices.length > 0) {
    const list = el("div", { class: "quiz-choices" });
    for (const c of choices) {
      const label = el("label", { class: "quiz-choice" });
      label.append(el("input", { type: "radio", name: "answer-" + n, id: "answer-" + n + "-" + c.letter, value: c.letter }),
        el("span", {}, c.letter + ") " + c.text));
      list.append(label);
    }
    q.append(list);
  } else {
    const row = el("div", { class: "quiz-answer" });
    row.append(el("label", { for: "answer-" + n }, "Your answer"),
      el("input", { type: "text", id: "answer-" + n, name: "answer-" + n, autocomplete: "off", spellcheck: "false" }));
    if (hint) row.append(el("span", { class: "quiz-hint" }, hint));
    q.append(row);
  }
  // (id then data-verdict, next to each other: tests/site/quiz_page.sh reads the pair from the page)
  q.append(el("div", { class: "verdict", "aria-live": "polite", id: "verdict-" + n }));
  return q;
}

function showQuestions(lesson, student) {
  const box = document.getElementById("quiz-questions");
  box.replaceChildren();
  box.dataset.count = "0";
  document.getElementById("quiz-result").replaceChildren();
  document.getElementById("quiz-submit").hidden = true;
  if (BLANK.test(student)) {
    idProblem(BLANK_ID);
    document.getElementById("quiz-student").focus();
    return 0;
  }
  const r = quiz([lesson, "--student", student, "--questions"]);
  if (r.code !== 0) {
    const why = r.stderr.trim().replace(/^quiz: /, "");
    if (why.startsWith("the student id ")) idProblem(why.charAt(0).toUpperCase() + why.slice(1) + ".");
    else box.append(el("p", { class: "error" }, r.stderr.trim()));
    return 0;
  }
  idProblem("");
  // the answers-file form: "#"-prefixed question blocks, each ended by its "N: " line
  let block = [], n = 0;
  for (const line of r.stdout.split("\n")) {
    const m = line.match(/^(\d+): $/);
    if (m) {
      n = Number(m[1]);
      box.append(questionBox(n, block));
      block = [];
    } else if (line.startsWith("# ") && !/^# +(lesson .* quiz for|grading\/quiz)/.test(line)) {
      block.push(line.slice(2));
    }
  }
  box.dataset.lesson = lesson;
  box.dataset.student = student;
  box.dataset.count = String(n);
  document.getElementById("quiz-submit").hidden = n === 0;
  return n;
}

function answerOf(i) { // the text typed, or the letter of the choice picked ("" for none)
  const typed = document.getElementById("answer-" + i);
  if (typed) return typed.value.trim();
  const picked = document.querySelector(`input[name="answer-${i}"]:checked`);
  return picked ? picked.value : "";
}

function grade() {
  const box = document.getElementById("quiz-questions");
  const lesson = box.dataset.lesson, student = box.dataset.student, count = Number(box.dataset.count);
  let file = "";
  for (let i = 1; i <= count; i++) {
    const v = answerOf(i);
    if (v !== "") file += i + ": " + v + "\n";
  }
  const r = quiz([lesson, "--student", student, "--answers", "/answers.txt"], file);
  const result = document.getElementById("quiz-result");
  result.replaceChildren();
  for (const v of box.querySelectorAll(".verdict")) {
    v.replaceChildren();
    delete v.dataset.verdict;
    v.parentElement.className = "quiz-q";
  }
  if (r.code === 2) { result.append(el("p", { class: "error" }, r.stderr.trim())); return; }
  // the program's text report: "NN qK: OK" or "NN qK: WRONG (...)", then, indented, the question, the
  // answer given and the working. The page shows the verdict and the working under the question: the
  // question and the answer given are right above it.
  let current = null, question = null, given = false;
  for (const line of r.stdout.split("\n")) {
    const m = line.match(/^\S+ q(\d+): (OK|WRONG.*)$/);
    if (m) {
      current = document.getElementById("verdict-" + m[1]);
      current.append(el("strong", {}, m[2]));
      current.dataset.verdict = m[2].startsWith("OK") ? "OK" : "WRONG";
      current.parentElement.className = "quiz-q " + (m[2].startsWith("OK") ? "ok" : "wrong");
      question = current.parentElement.dataset.question;
      given = false;
    } else if (current && line.startsWith("    ")) {
      const text = line.slice(4);
      if (question !== null && text === question) { question = null; continue; }
      if (!given && text.startsWith("your answer: ")) { given = true; continue; }
      let why = current.querySelector(".why");
      if (!why) current.append((why = el("div", { class: "why" })));
      why.textContent += (why.textContent ? "\n" : "") + text;
    } else if (line.startsWith("Score:")) {
      result.append(el("p", { id: "quiz-score" }, line));
    }
  }
  result.append(el("details", {}, ""));
  result.lastChild.append(el("summary", {}, "The report as grading/quiz prints it"), el("pre", { id: "quiz-output" }, r.stdout));
}

window.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("quiz-form");
  const lessons = quiz(["--list"]);
  const select = document.getElementById("quiz-lesson");
  for (const l of lessons.stdout.split("\n").filter(Boolean)) select.append(el("option", { value: l }, "Lesson " + l));
  const student = document.getElementById("quiz-student");
  form.addEventListener("submit", (e) => { e.preventDefault(); showQuestions(select.value, student.value); });
  document.getElementById("quiz-answers").addEventListener("submit", (e) => { e.preventDefault(); grade(); });
  // Enter in a field submits its form: browsers do that for a text field, not for a radio button, so
  // one handler does it for both (the browser's own submission prevented: it would run a second time)
  document.addEventListener("keydown", (e) => {
    const f = e.target instanceof HTMLInputElement ? e.target.form : null;
    if (e.key !== "Enter" || e.isComposing || !f || (f !== form && f.id !== "quiz-answers")) return;
    e.preventDefault();
    f.requestSubmit();
  });
  const p = new URLSearchParams(location.search);
  setState("ready");
  if (p.get("lesson")) select.value = p.get("lesson");
  if (p.has("student")) student.value = p.get("student");
  if (p.get("lesson") && p.has("student")) {
    const n = showQuestions(p.get("lesson"), student.value);
    setState("asked");
    if (n && p.get("answers") !== null) {
      for (const line of p.get("answers").split("\n")) {
        const m = line.match(/^\s*(\d+):\s*(.*)$/);
        if (!m) continue;
        const typed = document.getElementById("answer-" + m[1]);
        // a choice as the program reads it: one letter, either case
        const choice = document.getElementById("answer-" + m[1] + "-" + m[2].trim().toLowerCase());
        if (typed) typed.value = m[2];
        else if (choice) choice.checked = true;
      }
      grade();
      setState("graded");
    }
  }
});
