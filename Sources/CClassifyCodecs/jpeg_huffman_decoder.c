#include "jpeg_huffman_decoder.h"

#include <string.h>

#include "jpeg_error_manager.h"

// libjpeg's module interfaces (struct jpeg_entropy_decoder); installed with its -dev package.
#include <jpegint.h>

/// Bits looked up at once: a code of at most this many bits (with its magnitude bits, for the
/// run tables) is decoded by one table read; longer ones are decoded code length by length.
enum { LOOKAHEAD = 11, LOOKAHEAD_SIZE = 1 << LOOKAHEAD };

/// Bits the skip tables look at once: wider, since each entry holds several symbols.
enum { SKIP_BITS = 12, SKIP_SIZE = 1 << SKIP_BITS };

/// Position of each zig-zag coefficient in the 8x8 block (row-major), from ITU T.81 figure A.6.
/// libjpeg's table has sixteen more entries for damaged data; here a coefficient past 63 declines
/// before it is looked up.
static const uint8_t zigzag_to_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/// One Huffman table in canonical form (ITU T.81 annex C and F.2.2.3).
typedef struct huffman_table {
    /// Largest code of each length (1...16), or -1 when there is none.
    int32_t maximum_code[17];
    /// Index into `values` of code c of length l: c + value_offset[l].
    int32_t value_offset[17];
    uint8_t values[256];
    /// The next LOOKAHEAD bits -> (code length << 8) | symbol; 0 when the code is longer.
    uint16_t symbol[LOOKAHEAD_SIZE];
    /// The next LOOKAHEAD bits -> a whole symbol with its magnitude bits, when both fit:
    /// bits 0-4 the bits they take, 5-6 the kind (VALUE, END_OF_BLOCK or ZERO_RUN), 8-11 the run
    /// of zeros, 16-31 the signed value. 0 when they do not fit.
    int32_t value[LOOKAHEAD_SIZE];
} huffman_table;

enum { VALUE = 0, END_OF_BLOCK = 1, ZERO_RUN = 2 };

/// For an AC table whose coefficients are skipped: the next SKIP_BITS bits -> as many whole
/// symbols (code and magnitude bits) as fit in them, up to and including an end of block.
/// Bits 0-3: bits they take; 4-10: coefficients they pass (a run of r zeros and a value pass r + 1,
/// ZRL 16); bit 11: the last is an end of block. 0 when not even one symbol fits.
typedef uint16_t skip_entry;

typedef struct bit_reader {
    /// The next bits of the scan, first bit highest; below the `count` valid ones, zeros.
    uint64_t bits;
    /// Valid bits in `bits`; negative once more were taken than the segment holds.
    int count;
    /// The next byte not yet in `bits`.
    const uint8_t *next;
    const uint8_t *end;
    /// `next` is at a marker or at the end of the data: nothing more is loaded.
    int stopped;
} bit_reader;

typedef struct huffman_decoder {
    /// Must stay the first member: libjpeg calls through cinfo->entropy.
    struct jpeg_entropy_decoder library;
    bit_reader reader;
    const uint8_t *data;
    cls_jpeg_resume_source resume;
    int *declined;
    /// Per block of an MCU: the tables of its component, its place among the scan's components
    /// (for the DC prediction) and whether its IDCT reads AC coefficients at all.
    const huffman_table *dc_table[D_MAX_BLOCKS_IN_MCU];
    const huffman_table *ac_table[D_MAX_BLOCKS_IN_MCU];
    const skip_entry *skip_table[D_MAX_BLOCKS_IN_MCU];
    int component[D_MAX_BLOCKS_IN_MCU];
    int keeps_ac[D_MAX_BLOCKS_IN_MCU];
    int previous_dc[MAX_COMPS_IN_SCAN];
    unsigned int restarts_to_go;
    int next_restart;
    JDIMENSION mcus_left;
    /// The column of the next MCU in its row, and the columns whose blocks libjpeg transforms
    /// (all of them, or those of a jpeg_crop_scanline rectangle): the others are only passed.
    JDIMENSION column;
    JDIMENSION first_kept_column;
    JDIMENSION last_kept_column;
    huffman_table dc[NUM_HUFF_TBLS];
    huffman_table ac[NUM_HUFF_TBLS];
    skip_entry skip[NUM_HUFF_TBLS][SKIP_SIZE];
} huffman_decoder;

__attribute__((noreturn)) static void decline(j_decompress_ptr cinfo) {
    huffman_decoder *decoder = (huffman_decoder *)cinfo->entropy;
    *decoder->declined = 1;
    cls_jpeg_fail((j_common_ptr)cinfo, CLS_CORRUPT, "JPEG entropy data needs libjpeg's own decoder");
    __builtin_unreachable();  // cls_jpeg_fail longjmps
}

// MARK: - Bits

static int has_ff_byte(uint64_t word) {
    uint64_t inverted = ~word;  // a 0xFF byte becomes a zero byte
    return ((inverted - 0x0101010101010101ULL) & ~inverted & 0x8080808080808080ULL) != 0;
}

/// Loads whole bytes until at least 57 bits are valid, undoing byte stuffing (0xFF 0x00), and
/// stops for good at a marker or the end of the data. Inline, like everything the MCU loop calls
/// with its reader, so that the reader stays in registers.
static inline __attribute__((always_inline)) void refill(bit_reader *reader) {
    while (!reader->stopped && reader->count <= 56) {
        if (reader->count <= 48 && reader->end - reader->next >= 8) {
            uint64_t word;
            memcpy(&word, reader->next, sizeof word);
            word = __builtin_bswap64(word);
            if (!has_ff_byte(word)) {
                int bytes = (63 - reader->count) >> 3;
                reader->bits |= (word >> (8 * (8 - bytes))) << (64 - reader->count - 8 * bytes);
                reader->count += 8 * bytes;
                reader->next += bytes;
                continue;
            }
        }
        if (reader->next >= reader->end) {
            reader->stopped = 1;
            break;
        }
        uint8_t byte = reader->next[0];
        if (byte == 0xFF) {
            if (reader->end - reader->next < 2 || reader->next[1] != 0x00) {
                reader->stopped = 1;
                break;
            }
            reader->next += 2;
        } else {
            reader->next += 1;
        }
        reader->bits |= (uint64_t)byte << (56 - reader->count);
        reader->count += 8;
    }
}

static inline __attribute__((always_inline)) uint32_t peek(const bit_reader *reader, int length) {
    return (uint32_t)(reader->bits >> (64 - length));
}

static inline __attribute__((always_inline)) void consume(bit_reader *reader, int length) {
    reader->bits <<= length;
    reader->count -= length;
}

/// The signed value of `size` magnitude bits (T.81 F.2.2.1, EXTEND).
static inline __attribute__((always_inline)) int extend(int bits, int size) {
    return bits < (1 << (size - 1)) ? bits - (1 << size) + 1 : bits;
}

static inline __attribute__((always_inline)) int receive_extend(bit_reader *reader, int size) {
    if (size == 0) return 0;
    int bits = (int)peek(reader, size);
    consume(reader, size);
    return extend(bits, size);
}

/// Decodes the symbol at the start of the `width` low bits of `window`; 0 when no whole code
/// lies inside them, else its length, with the symbol in `*symbol`.
static int code_in_window(const huffman_table *table, uint32_t window, int width, int *symbol) {
    for (int length = 1; length <= 16 && length <= width; length++) {
        int32_t code = (int32_t)((window >> (width - length)) & ((1u << length) - 1));
        if (code <= table->maximum_code[length]) {
            *symbol = table->values[code + table->value_offset[length]];
            return length;
        }
    }
    return 0;
}

/// Decodes one symbol; needs 16 valid bits (or a stopped reader, whose zeros then count).
static inline __attribute__((always_inline)) int decode_symbol(j_decompress_ptr cinfo, bit_reader *reader, const huffman_table *table) {
    uint16_t entry = table->symbol[peek(reader, LOOKAHEAD)];
    if (entry != 0) {
        consume(reader, entry >> 8);
        return entry & 0xFF;
    }
    int symbol, length = code_in_window(table, peek(reader, 16), 16, &symbol);
    if (length == 0) decline(cinfo);
    consume(reader, length);
    return symbol;
}

// MARK: - Tables

/// Canonical codes from libjpeg's table (T.81 C.2); 0 when the table is not a valid prefix code.
static int build_table(const JHUFF_TBL *source, int is_dc, huffman_table *table) {
    memset(table, 0, sizeof *table);
    int count = 0;
    for (int length = 1; length <= 16; length++) count += source->bits[length];
    if (count > 256) return 0;
    memcpy(table->values, source->huffval, 256);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        int n = source->bits[length];
        table->value_offset[length] = index - code;
        table->maximum_code[length] = n > 0 ? code + n - 1 : -1;
        for (int i = 0; i < n; i++, index++, code++) {
            // Every code must fit in its length (checked before it indexes the lookup table).
            if (code >= (1 << length)) return 0;
            if (is_dc && table->values[index] > 15) return 0;
            if (length <= LOOKAHEAD) {
                int shift = LOOKAHEAD - length;
                uint16_t entry = (uint16_t)((length << 8) | table->values[index]);
                for (int fill = 0; fill < (1 << shift); fill++) table->symbol[(code << shift) | fill] = entry;
            }
        }
        // ... and leave the all-ones code of its length unused (C.2), as libjpeg checks.
        if (code >= (1 << length)) return 0;
        code <<= 1;
    }
    for (uint32_t window = 0; window < LOOKAHEAD_SIZE; window++) {
        uint16_t entry = table->symbol[window];
        if (entry == 0) continue;
        int length = entry >> 8, symbol = entry & 0xFF;
        int run = is_dc ? 0 : symbol >> 4, size = is_dc ? symbol : symbol & 15;
        if (length + size > LOOKAHEAD) continue;
        int kind = VALUE, value = 0;
        if (size > 0) {
            int bits = (int)((window >> (LOOKAHEAD - length - size)) & ((1u << size) - 1));
            value = extend(bits, size);
        } else if (!is_dc) {
            kind = run == 15 ? ZERO_RUN : END_OF_BLOCK;
        }
        table->value[window] = (int32_t)((uint32_t)value << 16) | (run << 8) | (kind << 5) | (length + size);
    }
    return 1;
}

/// Symbols of an AC table decoded from the start of a SKIP_BITS-bit window, for skipping.
static void build_skip_table(const huffman_table *table, skip_entry *skip) {
    for (uint32_t window = 0; window < SKIP_SIZE; window++) {
        int used = 0, passed = 0, end_of_block = 0;
        while (used < SKIP_BITS) {
            int symbol;
            // Bits past the window's end are unknown: the code must lie inside what is left.
            int length = code_in_window(table, window, SKIP_BITS - used, &symbol);
            if (length == 0) break;
            int run = symbol >> 4, size = symbol & 15;
            if (size == 0 && run != 15) {
                used += length;
                end_of_block = 1;
                break;
            }
            if (length + size > SKIP_BITS - used) break;
            int pass = size == 0 ? 16 : run + 1;
            if (passed + pass > 64) break;
            used += length + size;
            passed += pass;
        }
        skip[window] = used == 0 ? 0 : (skip_entry)(used | (passed << 4) | (end_of_block << 11));
    }
}

/// The skip tables built last on this thread, by the AC table they came from: photos from one
/// camera or encoder share their tables, and building one (4,096 windows, each decoded symbol by
/// symbol) costs more than the rest of installing the decoder.
enum { SKIP_CACHE_SLOTS = 2 };

typedef struct skip_cache_slot {
    int used;
    uint8_t bits[17];
    uint8_t values[256];
    skip_entry skip[SKIP_SIZE];
} skip_cache_slot;

static _Thread_local skip_cache_slot skip_cache[SKIP_CACHE_SLOTS];
static _Thread_local int skip_cache_next;

/// Fills `skip` for the AC table `source` (whose canonical form is `table`), from this thread's
/// cache when the same table was seen last, building and caching it otherwise.
static void fill_skip_table(const JHUFF_TBL *source, const huffman_table *table, skip_entry *skip) {
    // Symbols past the table's count are not part of it (build_table checked it is at most 256).
    size_t count = 0;
    for (int length = 1; length <= 16; length++) count += source->bits[length];
    for (int i = 0; i < SKIP_CACHE_SLOTS; i++) {
        const skip_cache_slot *slot = &skip_cache[i];
        if (slot->used && memcmp(slot->bits, source->bits, sizeof slot->bits) == 0 &&
            memcmp(slot->values, source->huffval, count) == 0) {
            memcpy(skip, slot->skip, sizeof slot->skip);
            return;
        }
    }
    build_skip_table(table, skip);
    skip_cache_slot *slot = &skip_cache[skip_cache_next];
    skip_cache_next = (skip_cache_next + 1) % SKIP_CACHE_SLOTS;
    memcpy(slot->bits, source->bits, sizeof slot->bits);
    memcpy(slot->values, source->huffval, count);
    memcpy(slot->skip, skip, sizeof slot->skip);
    slot->used = 1;
}

// MARK: - Blocks

/// One AC symbol decoded code length by code length (T.81 F.2.2.2): moves `*k` past it and
/// stores its value in `block` (when not NULL); returns 1 when the block has ended.
static inline __attribute__((always_inline)) int decode_long_symbol(j_decompress_ptr cinfo, bit_reader *reader,
                                                                    const huffman_table *table, int *k, JCOEF *block) {
    int symbol = decode_symbol(cinfo, reader, table);
    int run = symbol >> 4, size = symbol & 15;
    if (size == 0 && run != 15) return 1;  // end of block
    *k += size == 0 ? 15 : run;            // ZRL: sixteen zeros
    if (*k > 63) decline(cinfo);
    int value = receive_extend(reader, size);
    if (block != NULL && size != 0) block[zigzag_to_natural[*k]] = (JCOEF)value;
    return ++*k == 64;
}

/// Passes over the AC coefficients of a block whose IDCT reads only its DC one.
static inline __attribute__((always_inline)) void skip_ac(j_decompress_ptr cinfo, bit_reader *reader, const huffman_table *table,
                           const skip_entry *skip) {
    int k = 1;
    for (;;) {
        if (reader->count < 32) refill(reader);
        skip_entry entry = skip[peek(reader, SKIP_BITS)];
        if (entry != 0) {
            int passed = (entry >> 4) & 127;
            // An end of block only ends this block while a coefficient is still to come; a block
            // the entry would finish exactly ends there (the next bits are the next block's).
            int usable = (entry >> 11) ? k + passed <= 63 : k + passed <= 64;
            if (usable) {
                consume(reader, entry & 15);
                k += passed;
                if ((entry >> 11) || k == 64) return;
                continue;
            }
        }
        if (decode_long_symbol(cinfo, reader, table, &k, NULL)) return;
    }
}

/// Decodes the AC coefficients of a block whose IDCT reads them (T.81 F.2.2.2).
static inline __attribute__((always_inline)) void decode_ac(j_decompress_ptr cinfo, bit_reader *reader, const huffman_table *table, JCOEF *block) {
    int k = 1;
    for (;;) {
        if (reader->count < 32) refill(reader);
        int32_t entry = table->value[peek(reader, LOOKAHEAD)];
        if (entry != 0) {
            consume(reader, entry & 31);
            int kind = (entry >> 5) & 3;
            if (kind == END_OF_BLOCK) return;
            k += kind == ZERO_RUN ? 15 : (entry >> 8) & 15;
            if (k > 63) decline(cinfo);
            if (kind == VALUE) block[zigzag_to_natural[k]] = (JCOEF)(entry >> 16);
            if (++k == 64) return;
            continue;
        }
        if (decode_long_symbol(cinfo, reader, table, &k, block)) return;
    }
}

// MARK: - Restarts and the end of the scan

/// The entropy-coded segment must end here: at a marker or the end of the data, with at most the
/// padding bits of its last byte left.
static void expect_segment_end(j_decompress_ptr cinfo, bit_reader *reader) {
    refill(reader);
    if (!reader->stopped || reader->count < 0 || reader->count >= 8) decline(cinfo);
}

/// At a restart marker: the segment must have ended on it, with at most its padding bits left.
static void take_restart_marker(j_decompress_ptr cinfo, huffman_decoder *decoder) {
    bit_reader *reader = &decoder->reader;
    expect_segment_end(cinfo, reader);
    const uint8_t *marker = reader->next;
    while (reader->end - marker >= 2 && marker[1] == 0xFF) marker++;  // fill bytes
    if (reader->end - marker < 2 || marker[1] != JPEG_RST0 + decoder->next_restart) decline(cinfo);
    reader->next = marker + 2;
    reader->bits = 0;
    reader->count = 0;
    reader->stopped = 0;
    memset(decoder->previous_dc, 0, sizeof decoder->previous_dc);
    decoder->next_restart = (decoder->next_restart + 1) & 7;
    decoder->restarts_to_go = cinfo->restart_interval;
}

/// After the last MCU: the scan must end at a marker (or the end of the file), with at most
/// padding bits left; libjpeg reads on from there.
static void finish_scan(j_decompress_ptr cinfo, huffman_decoder *decoder) {
    bit_reader *reader = &decoder->reader;
    expect_segment_end(cinfo, reader);
    decoder->resume(cinfo, (size_t)(reader->next - decoder->data));
}

/// One MCU's blocks into `mcu` (NULL when libjpeg passes the MCU), reading with `reader`.
static inline __attribute__((always_inline)) void decode_blocks(j_decompress_ptr cinfo, huffman_decoder *decoder, bit_reader *reader,
                                                                JBLOCKROW *mcu, const int blocks_in_mcu) {
    // libjpeg transforms this MCU's blocks only inside the crop's columns, and none of an MCU it
    // skips (jpeg_skip_scanlines passes no buffer): the others need their DC predictions alone.
    int transformed = mcu != NULL && decoder->column >= decoder->first_kept_column && decoder->column <= decoder->last_kept_column;
    if (++decoder->column == cinfo->MCUs_per_row) decoder->column = 0;
    for (int b = 0; b < blocks_in_mcu; b++) {
        if (reader->count < 32) refill(reader);
        const huffman_table *dc_table = decoder->dc_table[b];
        int difference;
        int32_t entry = dc_table->value[peek(reader, LOOKAHEAD)];
        if (entry != 0) {
            consume(reader, entry & 31);
            difference = entry >> 16;
        } else {
            difference = receive_extend(reader, decode_symbol(cinfo, reader, dc_table));
        }
        int component = decoder->component[b];
        // Unsigned, as libjpeg-turbo adds: damaged files can drive the sum past int.
        int dc = (int)((unsigned int)decoder->previous_dc[component] + (unsigned int)difference);
        decoder->previous_dc[component] = dc;
        if (transformed && decoder->keeps_ac[b]) {
            JCOEF *block = mcu[b][0];
            memset(block, 0, sizeof(JBLOCK));
            block[0] = (JCOEF)dc;
            decode_ac(cinfo, reader, decoder->ac_table[b], block);
        } else {
            // Without skip tables every block was to be transformed (install's promise).
            if (decoder->skip_table[b] == NULL) decline(cinfo);
            if (mcu != NULL) mcu[b][0][0] = (JCOEF)dc;
            skip_ac(cinfo, reader, decoder->ac_table[b], decoder->skip_table[b]);
        }
    }
    // Bits taken past the end of the segment were made up.
    if (reader->count < 0) decline(cinfo);
}

/// The next `count` MCUs into `mcus[0]` ..< `mcus[count]`, as `count` calls of libjpeg's
/// decode_mcu would decode them, with the bit reader in registers from one MCU to the next (the
/// restart markers and the end of the scan read it from the decoder).
static inline __attribute__((always_inline)) void decode_mcus(j_decompress_ptr cinfo, JBLOCKROW *const *mcus, int count) {
    huffman_decoder *decoder = (huffman_decoder *)cinfo->entropy;
    // A local copy, which the compiler keeps in registers; stored back below.
    bit_reader local = decoder->reader;
    for (int m = 0; m < count; m++) {
        if (decoder->mcus_left == 0) decline(cinfo);
        if (cinfo->restart_interval != 0) {
            if (decoder->restarts_to_go == 0) {
                decoder->reader = local;
                take_restart_marker(cinfo, decoder);
                local = decoder->reader;
            }
            decoder->restarts_to_go--;
        }
        // A 4:2:0 photo's six blocks and a 4:4:4 one's three as constants: the block loop unrolls.
        switch (cinfo->blocks_in_MCU) {
        case 6: decode_blocks(cinfo, decoder, &local, mcus[m], 6); break;
        case 3: decode_blocks(cinfo, decoder, &local, mcus[m], 3); break;
        default: decode_blocks(cinfo, decoder, &local, mcus[m], cinfo->blocks_in_MCU); break;
        }
        if (--decoder->mcus_left == 0) {
            decoder->reader = local;
            finish_scan(cinfo, decoder);
            local = decoder->reader;
        }
    }
    decoder->reader = local;
}

// The same MCU loop compiled twice: with BMI2 the variable shifts of the bit reader take one
// instruction and no shift-count register (about 5% of the decoding time of a 12-MP photo).
static void decode_mcus_baseline(j_decompress_ptr cinfo, JBLOCKROW *const *mcus, int count) { decode_mcus(cinfo, mcus, count); }

__attribute__((target("bmi,bmi2"))) static void decode_mcus_bmi2(j_decompress_ptr cinfo, JBLOCKROW *const *mcus, int count) {
    decode_mcus(cinfo, mcus, count);
}

/// libjpeg's entry: one MCU (NULL when jpeg_skip_scanlines passes it).
static boolean decode_mcu_baseline(j_decompress_ptr cinfo, JBLOCKROW *mcu) {
    decode_mcus_baseline(cinfo, &mcu, 1);
    return TRUE;
}

static boolean decode_mcu_bmi2(j_decompress_ptr cinfo, JBLOCKROW *mcu) {
    decode_mcus_bmi2(cinfo, &mcu, 1);
    return TRUE;
}

int cls_jpeg_huffman_decode_mcus(j_decompress_ptr cinfo, JBLOCKROW *const *mcus, int count) {
    if (cinfo->entropy == NULL) return 0;
    if (cinfo->entropy->decode_mcu == decode_mcu_bmi2) {
        decode_mcus_bmi2(cinfo, mcus, count);
    } else if (cinfo->entropy->decode_mcu == decode_mcu_baseline) {
        decode_mcus_baseline(cinfo, mcus, count);
    } else {
        return 0;
    }
    return 1;
}

/// libjpeg calls this when another scan starts; a file whose single scan was ours has none,
/// and a second one is libjpeg's error to report, not ours to decode.
static void start_pass(j_decompress_ptr cinfo) { decline(cinfo); }

// MARK: - Installing

int cls_jpeg_huffman_install(j_decompress_ptr cinfo, const uint8_t *data, size_t size,
                             cls_jpeg_resume_source resume, int skips_rows, int baseline_only, int *declined) {
    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8) return 0;
    if (cinfo->comps_in_scan != cinfo->num_components || cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU) return 0;
    if (cinfo->Ss != 0 || cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0) return 0;
    if (cinfo->src == NULL || cinfo->src->next_input_byte == NULL) return 0;
    const uint8_t *start = cinfo->src->next_input_byte;
    if (start < data || start > data + size) return 0;
    // The blocks are transformed by decompress_onepass, which reads the crop's columns from here.
    if (cinfo->master == NULL || cinfo->master->first_iMCU_col > cinfo->master->last_iMCU_col ||
        cinfo->master->last_iMCU_col >= cinfo->MCUs_per_row)
        return 0;
    for (int c = 0; c < cinfo->comps_in_scan; c++) {
        const jpeg_component_info *component = cinfo->cur_comp_info[c];
        if (component->dc_tbl_no < 0 || component->dc_tbl_no >= NUM_HUFF_TBLS ||
            component->ac_tbl_no < 0 || component->ac_tbl_no >= NUM_HUFF_TBLS)
            return 0;
        if (cinfo->dc_huff_tbl_ptrs[component->dc_tbl_no] == NULL || cinfo->ac_huff_tbl_ptrs[component->ac_tbl_no] == NULL)
            return 0;
    }

    huffman_decoder *decoder = (*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, sizeof *decoder);
    memset(decoder, 0, sizeof *decoder);
    decoder->first_kept_column = cinfo->master->first_iMCU_col;
    decoder->last_kept_column = cinfo->master->last_iMCU_col;
    // Skip tables only where blocks are passed: a whole decode at full size passes none.
    int passes_blocks = skips_rows || decoder->first_kept_column > 0 || decoder->last_kept_column + 1 < cinfo->MCUs_per_row;
    for (int b = 0; b < cinfo->blocks_in_MCU; b++) {
        const jpeg_component_info *component = cinfo->cur_comp_info[cinfo->MCU_membership[b]];
        // A 1x1 IDCT reads the DC coefficient alone; a component libjpeg does not output, none.
        decoder->keeps_ac[b] = component->DCT_scaled_size > 1 && component->component_needed;
        if (!decoder->keeps_ac[b]) passes_blocks = 1;
    }
    int built_dc[NUM_HUFF_TBLS] = {0}, built_ac[NUM_HUFF_TBLS] = {0};
    for (int c = 0; c < cinfo->comps_in_scan; c++) {
        const jpeg_component_info *component = cinfo->cur_comp_info[c];
        int d = component->dc_tbl_no, a = component->ac_tbl_no;
        if (!built_dc[d] && !build_table(cinfo->dc_huff_tbl_ptrs[d], 1, &decoder->dc[d])) return 0;
        if (!built_ac[a]) {
            if (!build_table(cinfo->ac_huff_tbl_ptrs[a], 0, &decoder->ac[a])) return 0;
            if (passes_blocks) fill_skip_table(cinfo->ac_huff_tbl_ptrs[a], &decoder->ac[a], decoder->skip[a]);
        }
        built_dc[d] = built_ac[a] = 1;
    }
    for (int b = 0; b < cinfo->blocks_in_MCU; b++) {
        int c = cinfo->MCU_membership[b];
        const jpeg_component_info *component = cinfo->cur_comp_info[c];
        decoder->dc_table[b] = &decoder->dc[component->dc_tbl_no];
        decoder->ac_table[b] = &decoder->ac[component->ac_tbl_no];
        decoder->skip_table[b] = passes_blocks ? decoder->skip[component->ac_tbl_no] : NULL;
        decoder->component[b] = c;
    }
    decoder->reader.next = start;
    decoder->reader.end = data + size;
    decoder->data = data;
    decoder->resume = resume;
    decoder->declined = declined;
    decoder->restarts_to_go = cinfo->restart_interval;
    decoder->mcus_left = cinfo->MCUs_per_row * cinfo->MCU_rows_in_scan;
    decoder->library.start_pass = start_pass;
    decoder->library.decode_mcu = !baseline_only && __builtin_cpu_supports("bmi2") ? decode_mcu_bmi2 : decode_mcu_baseline;
    decoder->library.insufficient_data = FALSE;
    cinfo->entropy = &decoder->library;
    return 1;
}
