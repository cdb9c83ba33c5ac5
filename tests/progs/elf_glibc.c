/* elf_glibc — the glibc versions a 64-bit ELF file requires, for the GPU bundle (tests/gpu/bundle.sh).
 *
 *   elf_glibc needs FILE...          prints the newest GLIBC_x.y any FILE requires (weak ones aside)
 *   elf_glibc weaken X.Y FILE...     marks every requirement of a glibc newer than X.Y weak, in place,
 *                                    and prints "FILE SYMBOL" for each symbol bound to one of them
 *
 * Why: the bundle's libraries come from Debian 12 (glibc 2.36) and may run on an older glibc. A
 * version requirement the running glibc lacks stops ld.so at load time, even when the symbols
 * behind it are never called or are given by another object; a weak one (VER_FLG_WEAK) does not,
 * and such a symbol then binds to any unversioned definition in the global scope — the bundle's
 * compat shim (tests/gpu/glibc-compat.c, preloaded by run.sh on an older glibc). The caller checks
 * that the shim defines every symbol printed. Files that are not 64-bit ELF are skipped. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *p;
    size_t n;
} blob_t;

static int read_file(const char *path, blob_t *b) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return -1;
    }
    long n = ftell(f);
    rewind(f);
    b->p = n > 0 ? malloc((size_t)n) : NULL;
    b->n = n > 0 ? (size_t)n : 0;
    int ok = b->p && fread(b->p, 1, b->n, f) == b->n;
    fclose(f);
    return ok ? 0 : -1;
}

/* "GLIBC_2.36" -> 2 * 1000 + 36 (a third part is ignored); -1 when not a glibc version */
static long glibc_version(const char *name) {
    unsigned major = 0, minor = 0;
    if (strncmp(name, "GLIBC_", 6) != 0 || sscanf(name + 6, "%u.%u", &major, &minor) != 2) return -1;
    return (long)major * 1000 + minor;
}

static int in_bounds(const blob_t *b, size_t off, size_t len) { return off <= b->n && len <= b->n - off; }

/* Walks the version requirements of one file: records the newest non-weak glibc version in *newest
 * and, when limit >= 0, marks those above limit weak and prints the symbols that use them. */
static int scan(const char *path, blob_t *b, long limit, long *newest, int *changed) {
    if (b->n < sizeof(Elf64_Ehdr) || memcmp(b->p, ELFMAG, SELFMAG) != 0 || b->p[EI_CLASS] != ELFCLASS64) return 0;
    Elf64_Ehdr eh;
    memcpy(&eh, b->p, sizeof eh);
    if (!in_bounds(b, eh.e_shoff, (size_t)eh.e_shnum * sizeof(Elf64_Shdr))) return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b->p + eh.e_shoff);
    const Elf64_Shdr *verneed = NULL, *versym = NULL, *dynsym = NULL;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type == SHT_GNU_verneed)
            verneed = &sh[i];
        else if (sh[i].sh_type == SHT_GNU_versym)
            versym = &sh[i];
        else if (sh[i].sh_type == SHT_DYNSYM)
            dynsym = &sh[i];
    }
    if (!verneed || verneed->sh_link >= eh.e_shnum) return 0;
    const Elf64_Shdr *str = &sh[verneed->sh_link];
    if (!in_bounds(b, str->sh_offset, str->sh_size) || !in_bounds(b, verneed->sh_offset, verneed->sh_size)) {
        fprintf(stderr, "elf_glibc: %s: version section out of the file\n", path);
        return -1;
    }
    const char *strtab = (const char *)(b->p + str->sh_offset);
    unsigned weakened[64];
    int nweak = 0;
    size_t off = verneed->sh_offset;
    for (;;) {
        if (!in_bounds(b, off, sizeof(Elf64_Verneed))) break;
        Elf64_Verneed vn;
        memcpy(&vn, b->p + off, sizeof vn);
        size_t aoff = off + vn.vn_aux;
        for (unsigned a = 0; a < vn.vn_cnt && in_bounds(b, aoff, sizeof(Elf64_Vernaux)); a++) {
            Elf64_Vernaux *va = (Elf64_Vernaux *)(b->p + aoff);
            const char *name = va->vna_name < str->sh_size ? strtab + va->vna_name : "";
            long v = glibc_version(name);
            if (v >= 0 && limit >= 0 && v > limit && !(va->vna_flags & VER_FLG_WEAK)) {
                va->vna_flags |= VER_FLG_WEAK;
                *changed = 1;
                if (nweak < 64) weakened[nweak++] = va->vna_other & 0x7fff;
            }
            if (v > *newest && !(va->vna_flags & VER_FLG_WEAK)) *newest = v;
            if (va->vna_next == 0) break;
            aoff += va->vna_next;
        }
        if (vn.vn_next == 0) break;
        off += vn.vn_next;
    }
    if (nweak == 0 || !versym || !dynsym || dynsym->sh_link >= eh.e_shnum) return 0;
    const Elf64_Shdr *dstr = &sh[dynsym->sh_link];
    size_t nsym = dynsym->sh_size / sizeof(Elf64_Sym);
    if (!in_bounds(b, dynsym->sh_offset, dynsym->sh_size) || !in_bounds(b, versym->sh_offset, nsym * 2) ||
        !in_bounds(b, dstr->sh_offset, dstr->sh_size))
        return 0;
    for (size_t i = 0; i < nsym; i++) {
        Elf64_Sym s;
        Elf64_Half ver;
        memcpy(&s, b->p + dynsym->sh_offset + i * sizeof s, sizeof s);
        memcpy(&ver, b->p + versym->sh_offset + i * 2, 2);
        for (int w = 0; w < nweak; w++)
            if ((ver & 0x7fff) == weakened[w] && s.st_name < dstr->sh_size)
                printf("%s %s\n", path, (const char *)(b->p + dstr->sh_offset + s.st_name));
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "needs") != 0 && strcmp(argv[1], "weaken") != 0) ||
        (strcmp(argv[1], "weaken") == 0 && argc < 4)) {
        fprintf(stderr, "usage: elf_glibc needs FILE... | elf_glibc weaken X.Y FILE...\n");
        return 2;
    }
    long limit = -1;
    int first = 2;
    if (strcmp(argv[1], "weaken") == 0) {
        char name[64];
        snprintf(name, sizeof name, "GLIBC_%s", argv[2]);
        limit = glibc_version(name);
        if (limit < 0) {
            fprintf(stderr, "elf_glibc: '%s' is not a glibc version (like 2.35)\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    long newest = 0;
    for (int i = first; i < argc; i++) {
        blob_t b = {0};
        if (read_file(argv[i], &b) != 0) {
            fprintf(stderr, "elf_glibc: cannot read %s\n", argv[i]);
            free(b.p);
            return 1;
        }
        int changed = 0;
        if (scan(argv[i], &b, limit, &newest, &changed) != 0) {
            free(b.p);
            return 1;
        }
        if (changed) {
            FILE *f = fopen(argv[i], "r+b");
            int ok = f && fwrite(b.p, 1, b.n, f) == b.n;
            if (f && fclose(f) != 0) ok = 0;
            if (!ok) {
                fprintf(stderr, "elf_glibc: cannot rewrite %s (is it writable?)\n", argv[i]);
                free(b.p);
                return 1;
            }
        }
        free(b.p);
    }
    if (limit < 0) printf("%ld.%ld\n", newest / 1000, newest % 1000);
    return 0;
}
