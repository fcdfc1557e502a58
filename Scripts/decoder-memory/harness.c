// Decoder-level peak memory (see measure-decoder-memory): decodes FILE (PNG, TIFF, HEIC or AVIF,
// by extension) with CClassifyCodecs for a minimum short side and prints the output size and the
// process's peak resident memory (VmHWM) before and after. Built with -DAFTER against the codecs
// that reduce while decoding, without it against the earlier ones (commit 1c6f88e), whose open
// functions had no minimum short side. With -DAFTER, "check" as a third argument also decodes at
// full size and counts output values that differ from the block means of that decode, and
// HEIF_GRIDS=whole in the environment decodes grid pictures whole through libheif.
//
//   harness FILE MINIMUM_SHORT_SIDE [check]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cls_png_decoder.h"
#include "cls_tiff_decoder.h"
#include "cls_heif_decoder.h"
#ifdef AFTER
#include "cls_row_reduction.h"
#endif

void cls_message_set(cls_message *m, const char *t) { snprintf(m->text, sizeof m->text, "%s", t); }

static long hwm_kb(void) {
    FILE *f = fopen("/proc/self/status", "r"); char line[256]; long v = -1;
    while (fgets(line, sizeof line, f)) if (!strncmp(line, "VmHWM:", 6)) v = atol(line + 6);
    fclose(f); return v;
}

static uint8_t *decode(const char *path, const uint8_t *data, size_t size, uint32_t minimum, uint32_t *w, uint32_t *h) {
    cls_message m = {0}; cls_status s; uint8_t *rgb = NULL;
    const char *ext = strrchr(path, '.');
    if (!strcmp(ext, ".png")) {
        cls_png_decoder *d; cls_png_header hd;
#ifdef AFTER
        s = cls_png_decoder_open(data, size, 100000000, minimum, &d, &hd, &m);
        *w = hd.output_width; *h = hd.output_height;
#else
        (void)minimum; s = cls_png_decoder_open(data, size, 100000000, &d, &hd, &m); *w = hd.width; *h = hd.height;
#endif
        if (s == CLS_OK) { rgb = malloc((size_t)*w * *h * 3); s = cls_png_decoder_read_pixels(d, rgb, (size_t)*w * *h * 3, &m); }
        cls_png_decoder_close(d);
    } else if (!strcmp(ext, ".tif")) {
        cls_tiff_decoder *d; cls_image_info info;
#ifdef AFTER
        s = cls_tiff_decoder_open(data, size, 100000000, minimum, &d, &info, &m);
#else
        s = cls_tiff_decoder_open(data, size, 100000000, &d, &info, &m);
#endif
        *w = info.output_width; *h = info.output_height;
        if (s == CLS_OK) { rgb = malloc((size_t)*w * *h * 3); s = cls_tiff_decoder_read_pixels(d, rgb, (size_t)*w * *h * 3, &m); }
        cls_tiff_decoder_close(d);
    } else {
        cls_heif_decoder *d; cls_image_info info;
        cls_heif_coding coding = !strcmp(ext, ".avif") ? CLS_HEIF_AV1 : CLS_HEIF_HEVC;
#ifdef AFTER
        const char *grids = getenv("HEIF_GRIDS");
        s = cls_heif_decoder_open(data, size, coding, 100000000, 0, minimum,
                                  grids && !strcmp(grids, "whole") ? CLS_HEIF_GRIDS_WHOLE : CLS_HEIF_GRIDS_TILE_BY_TILE,
                                  &d, &info, &m);
#else
        s = cls_heif_decoder_open(data, size, coding, 100000000, 0, &d, &info, &m);
#endif
        *w = info.output_width; *h = info.output_height;
        if (s == CLS_OK) { rgb = malloc((size_t)*w * *h * 3); s = cls_heif_decoder_read_pixels(d, rgb, (size_t)*w * *h * 3, &m); }
        cls_heif_decoder_close(d);
    }
    if (s != CLS_OK) { fprintf(stderr, "%s: %d %s\n", path, s, m.text); exit(1); }
    return rgb;
}

int main(int argc, char **argv) {
    const char *path = argv[1]; uint32_t minimum = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    FILE *f = fopen(path, "rb"); fseek(f, 0, SEEK_END); size_t size = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size); if (fread(data, 1, size, f) != size) return 1; fclose(f);
    long before = hwm_kb();
    uint32_t w, h; uint8_t *rgb = decode(path, data, size, minimum, &w, &h);
    printf("%s min=%u out=%ux%u file=%.1fMB hwm_before=%.1fMB hwm_after=%.1fMB\n", path, minimum, w, h, size / 1048576.0, before / 1024.0, hwm_kb() / 1024.0);
    if (getenv("DUMP")) { FILE *o = fopen(getenv("DUMP"), "wb"); fwrite(rgb, 1, (size_t)w * h * 3, o); fclose(o); }
#ifdef AFTER
    if (argc > 3 && !strcmp(argv[3], "check")) {
        uint32_t fw, fh; uint8_t *full = decode(path, data, size, 0, &fw, &fh);
        uint32_t factor = cls_reduction_factor(fw, fh, minimum);
        long mismatches = 0;
        for (uint32_t by = 0; by < h; by++) for (uint32_t bx = 0; bx < w; bx++) for (int c = 0; c < 3; c++) {
            uint32_t sum = 0, n = 0;
            for (uint32_t y = by * factor; y < by * factor + factor && y < fh; y++)
                for (uint32_t x = bx * factor; x < bx * factor + factor && x < fw; x++) { sum += full[((size_t)y * fw + x) * 3 + c]; n++; }
            if (rgb[((size_t)by * w + bx) * 3 + c] != (sum + n / 2) / n) mismatches++;
        }
        printf("check factor=%u full=%ux%u mismatches=%ld\n", factor, fw, fh, mismatches);
        free(full);
    }
#endif
    free(rgb); free(data); return 0;
}
