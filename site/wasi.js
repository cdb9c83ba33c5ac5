/* wasi.js — just enough of WASI (preview 1) to run grading/quiz's C program in the page: its
 * arguments, stdout and stderr captured as text, and read-only files given in memory (the answers
 * file). Everything else answers ENOSYS. runWasi(module, args, files) -> {code, stdout, stderr}. */
"use strict";

function runWasi(module, args, files) {
  const ESUCCESS = 0, EBADF = 8, EINVAL = 28, ENOENT = 44, ENOSYS = 52, ESPIPE = 70;
  const enc = new TextEncoder();
  let memory = null;
  const out = { 1: [], 2: [] };
  const argv = args.map((a) => enc.encode(a + "\0"));
  // fd 3 is the preopened directory "/", 4 and up the files opened from it
  const open = {};
  let nextFd = 4;
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  class Exit { constructor(code) { this.code = code; } }

  const putList = (list, ptrs, buf) => {
    const v = view();
    for (const item of list) {
      v.setUint32(ptrs, buf, true);
      bytes().set(item, buf);
      ptrs += 4;
      buf += item.length;
    }
    return ESUCCESS;
  };
  const sizes = (list, countPtr, sizePtr) => {
    view().setUint32(countPtr, list.length, true);
    view().setUint32(sizePtr, list.reduce((s, x) => s + x.length, 0), true);
    return ESUCCESS;
  };
  const iovs = (ptr, n) => {
    const v = view(), r = [];
    for (let i = 0; i < n; i++) r.push([v.getUint32(ptr + 8 * i, true), v.getUint32(ptr + 8 * i + 4, true)]);
    return r;
  };

  const wasi = {
    args_sizes_get: (c, s) => sizes(argv, c, s),
    args_get: (p, b) => putList(argv, p, b),
    environ_sizes_get: (c, s) => sizes([], c, s),
    environ_get: () => ESUCCESS,
    clock_time_get: (id, prec, ptr) => { view().setBigUint64(ptr, BigInt(Date.now()) * 1000000n, true); return ESUCCESS; },
    random_get: (ptr, len) => { crypto.getRandomValues(bytes().subarray(ptr, ptr + len)); return ESUCCESS; },
    proc_exit: (code) => { throw new Exit(code); },
    fd_write: (fd, iov, n, written) => {
      if (!out[fd]) return EBADF;
      let total = 0;
      for (const [p, len] of iovs(iov, n)) { out[fd].push(bytes().slice(p, p + len)); total += len; }
      view().setUint32(written, total, true);
      return ESUCCESS;
    },
    fd_read: (fd, iov, n, nread) => {
      let total = 0;
      const f = open[fd];
      if (fd !== 0 && !f) return EBADF;
      for (const [p, len] of iovs(iov, n)) {
        if (!f) break; // stdin: always at its end
        const chunk = f.data.subarray(f.pos, f.pos + len);
        bytes().set(chunk, p);
        f.pos += chunk.length;
        total += chunk.length;
        if (chunk.length < len) break;
      }
      view().setUint32(nread, total, true);
      return ESUCCESS;
    },
    fd_seek: (fd, offset, whence, result) => {
      const f = open[fd];
      if (!f) return fd <= 2 ? ESPIPE : EBADF;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : f.data.length;
      const pos = base + Number(offset);
      if (pos < 0) return EINVAL;
      f.pos = pos;
      view().setBigUint64(result, BigInt(pos), true);
      return ESUCCESS;
    },
    fd_close: (fd) => { delete open[fd]; return ESUCCESS; },
    fd_fdstat_get: (fd, ptr) => {
      const type = fd <= 2 ? 2 : fd === 3 ? 3 : open[fd] ? 4 : -1; // character device, directory, file
      if (type < 0) return EBADF;
      const v = view();
      v.setUint8(ptr, type);
      v.setUint16(ptr + 2, 0, true);
      v.setBigUint64(ptr + 8, 0xffffffffffffffffn, true);
      v.setBigUint64(ptr + 16, 0xffffffffffffffffn, true);
      return ESUCCESS;
    },
    fd_fdstat_set_flags: () => ESUCCESS,
    fd_filestat_get: (fd, ptr) => {
      const type = fd <= 2 ? 2 : fd === 3 ? 3 : open[fd] ? 4 : -1;
      if (type < 0) return EBADF;
      bytes().fill(0, ptr, ptr + 64);
      view().setUint8(ptr + 16, type);
      view().setBigUint64(ptr + 24, 1n, true);
      view().setBigUint64(ptr + 32, BigInt(open[fd] ? open[fd].data.length : 0), true);
      return ESUCCESS;
    },
    fd_prestat_get: (fd, ptr) => {
      if (fd !== 3) return EBADF;
      view().setUint8(ptr, 0);
      view().setUint32(ptr + 4, 1, true);
      return ESUCCESS;
    },
    fd_prestat_dir_name: (fd, ptr, len) => {
      if (fd !== 3) return EBADF;
      bytes()[ptr] = 47; // "/"
      return ESUCCESS;
    },
    path_open: (dirfd, dirflags, path, pathLen, oflags, rightsBase, rightsInh, fdflags, fdPtr) => {
      if (dirfd !== 3) return EBADF;
      const name = new TextDecoder().decode(bytes().slice(path, path + pathLen));
      if (!(name in files) || oflags !== 0) return ENOENT;
      open[nextFd] = { data: enc.encode(files[name]), pos: 0 };
      view().setUint32(fdPtr, nextFd++, true);
      return ESUCCESS;
    },
  };
  const imports = { wasi_snapshot_preview1: new Proxy(wasi, { get: (t, k) => t[k] || (() => ENOSYS) }) };
  // synchronous (a module under 8 MB may be instantiated on the main thread): the page is complete
  // when its load event fires, with nothing left pending
  const instance = new WebAssembly.Instance(module, imports);
  memory = instance.exports.memory;
  let code = 0;
  try {
    instance.exports._start();
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    code = e.code;
  }
  const text = (chunks) => new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => Array.from(c))));
  return { code, stdout: text(out[1]), stderr: text(out[2]) };
}
