/* quiz.js — the quiz page: grading/quiz's own program (quiz-wasm.js, run by wasi.js) asks and judges;
 * this file only shows its questions, collects the answers as an answers file and shows its verdicts.
 * quiz.html?lesson=04&student=alice[&answers=FILE TEXT] fills the form (and submits) from the URL;
 * the page then sets data-quiz-state="graded" on <body> (tests/site/test.sh drives it this way). */
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

function showQuestions(lesson, student) {
  const box = document.getElementById("quiz-questions");
  box.replaceChildren();
  document.getElementById("quiz-result").replaceChildren();
  const r = quiz([lesson, "--student", student, "--questions"]);
  if (r.code !== 0) { box.append(el("p", { class: "error" }, r.stderr.trim())); return 0; }
  // the answers-file form: "#"-prefixed question blocks, each ended by its "N: " line
  let block = [], n = 0;
  for (const line of r.stdout.split("\n")) {
    const m = line.match(/^(\d+): $/);
    if (m) {
      n = Number(m[1]);
      const q = el("div", { class: "quiz-q", id: "q-" + n });
      q.append(el("pre", {}, block.join("\n")));
      const label = el("label", { for: "answer-" + n }, "Your answer: ");
      q.append(label, el("input", { id: "answer-" + n, name: String(n), autocomplete: "off" }));
      q.append(el("div", { class: "verdict", id: "verdict-" + n }));
      box.append(q);
      block = [];
    } else if (line.startsWith("# ") && n >= 0 && !/^# +(lesson .* quiz for|grading\/quiz)/.test(line)) {
      block.push(line.slice(2));
    }
  }
  box.dataset.lesson = lesson;
  box.dataset.student = student;
  box.dataset.count = String(n);
  document.getElementById("quiz-submit").hidden = n === 0;
  return n;
}

function grade() {
  const box = document.getElementById("quiz-questions");
  const lesson = box.dataset.lesson, student = box.dataset.student, count = Number(box.dataset.count);
  let file = "";
  for (let i = 1; i <= count; i++) {
    const v = document.getElementById("answer-" + i).value.trim();
    if (v !== "") file += i + ": " + v + "\n";
  }
  const r = quiz([lesson, "--student", student, "--answers", "/answers.txt"], file);
  const result = document.getElementById("quiz-result");
  result.replaceChildren();
  if (r.code === 2) { result.append(el("p", { class: "error" }, r.stderr.trim())); return; }
  // the program's text report: "NN qK: OK" or "NN qK: WRONG (...)" then its indented working
  let current = null;
  for (const line of r.stdout.split("\n")) {
    const m = line.match(/^\S+ q(\d+): (OK|WRONG.*)$/);
    if (m) {
      current = document.getElementById("verdict-" + m[1]);
      current.textContent = m[2];
      current.dataset.verdict = m[2].startsWith("OK") ? "OK" : "WRONG";
      current.parentElement.className = "quiz-q " + (m[2].startsWith("OK") ? "ok" : "wrong");
    } else if (current && line.startsWith("    ")) {
      let why = current.querySelector("pre.why");
      if (!why) current.append((why = el("pre", { class: "why" })));
      why.textContent += (why.textContent ? "\n" : "") + line.slice(4);
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
  form.addEventListener("submit", (e) => { e.preventDefault(); showQuestions(select.value, document.getElementById("quiz-student").value.trim() || "student"); });
  document.getElementById("quiz-submit").addEventListener("click", grade);
  const p = new URLSearchParams(location.search);
  setState("ready");
  if (p.get("lesson")) select.value = p.get("lesson");
  if (p.get("student")) document.getElementById("quiz-student").value = p.get("student");
  if (p.get("lesson") && p.get("student")) {
    const n = showQuestions(p.get("lesson"), p.get("student"));
    setState("asked");
    if (n && p.get("answers") !== null) {
      for (const line of p.get("answers").split("\n")) {
        const m = line.match(/^\s*(\d+):\s*(.*)$/);
        const input = m && document.getElementById("answer-" + m[1]);
        if (input) input.value = m[2];
      }
      grade();
      setState("graded");
    }
  }
});
