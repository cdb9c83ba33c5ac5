/* iframe-worker.js — Material's search runs in a Web Worker, and Chromium refuses to start a worker
 * from a page opened from the disk (file://). Material's offline plugin would load a stand-in for
 * Worker from a web CDN, which a reader without a network, or this build machine, cannot reach; this is
 * the course's own, in the site. On file:// only, Worker becomes a hidden same-origin frame that runs
 * the worker's script: the page's postMessage reaches the script's "message" listeners, and the
 * script's postMessage comes back as the worker's "message" event. The search worker needs no more
 * (it imports no other script for English). The offline plugin keeps a polyfill whose name has
 * "iframe-worker" in it instead of its own (site/mkdocs/mkdocs.yml lists this one). */
"use strict";
(function () {
  if (location.protocol !== "file:") return;
  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      const frame = document.createElement("iframe");
      frame.hidden = true;
      frame.setAttribute("aria-hidden", "true");
      (document.body || document.documentElement).appendChild(frame);
      const win = frame.contentWindow;
      // the script's replies: asynchronous, as a worker's are
      win.postMessage = (data) => setTimeout(() => this.dispatchEvent(new MessageEvent("message", { data })));
      win.importScripts = () => Promise.reject(new Error("iframe-worker: importScripts is not supported"));
      const script = win.document.createElement("script");
      script.src = new URL(url, location.href).href;
      this.ready = new Promise((resolve) => {
        script.onload = resolve;
        script.onerror = () => { this.dispatchEvent(new Event("error")); };
      });
      win.document.head.appendChild(script);
      this.frame = frame;
    }
    postMessage(data) {
      this.ready.then(() => {
        const win = this.frame.contentWindow;
        if (win) win.dispatchEvent(new win.MessageEvent("message", { data }));
      });
    }
    terminate() { this.frame.remove(); }
  }
  window.Worker = FrameWorker;
})();
