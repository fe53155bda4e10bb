package gotests

// ebsp10 is every function that EBSP 1.0's public headers declare, in the
// form a drift must not change (see signature): the facts the board's
// programs were compiled against, kept here as data because EBSP's own
// headers are another project's code and not kept beside ours. The empty
// parameter lists "()" are EBSP's: its prototypes were written that way,
// and programs that pass arguments to bsp_begin() rely on it.
//
// Source: coduin/epiphany-bsp 1.0, include/host_bsp.h, e_bsp.h and the two
// *_deprecated.h headers; TestHeadersMatchEBSPSource checks this table
// against them when EBSP_REFERENCE names a checkout.
var ebsp10 = []struct {
	header    string // the public header a program includes
	file      string // the header that declares it
	name      string
	signature string
}{
	{"host_bsp.h", "host_bsp.h", "bsp_begin", "int (int)"},
	{"host_bsp.h", "host_bsp.h", "bsp_end", "int ()"},
	{"host_bsp.h", "host_bsp.h", "bsp_init", "int (pointer to const char, int, pointer to pointer to char)"},
	{"host_bsp.h", "host_bsp.h", "bsp_nprocs", "int ()"},
	{"host_bsp.h", "host_bsp.h", "bsp_stream_create", "pointer to void (int, int, pointer to const void)"},
	{"host_bsp.h", "host_bsp_deprecated.h", "ebsp_create_down_stream", "void (pointer to const void, int, int, int)"},
	{"host_bsp.h", "host_bsp_deprecated.h", "ebsp_create_up_stream", "pointer to void (int, int, int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_get_tag", "void (pointer to int, pointer to void)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_get_tagsize", "int ()"},
	{"host_bsp.h", "host_bsp.h", "ebsp_hpmove", "int (pointer to pointer to void, pointer to pointer to void)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_move", "void (pointer to void, int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_qsize", "void (pointer to int, pointer to int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_read", "int (int, off_t, pointer to void, int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_send_down", "void (int, pointer to const void, pointer to const void, int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_set_end_callback", "void (pointer to function())"},
	{"host_bsp.h", "host_bsp.h", "ebsp_set_sync_callback", "void (pointer to function())"},
	{"host_bsp.h", "host_bsp.h", "ebsp_set_tagsize", "void (pointer to int)"},
	{"host_bsp.h", "host_bsp.h", "ebsp_spmd", "int ()"},
	{"host_bsp.h", "host_bsp.h", "ebsp_write", "int (int, pointer to void, off_t, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_abort", "void (pointer to const char, ...)"},
	{"e_bsp.h", "e_bsp.h", "bsp_begin", "void ()"},
	{"e_bsp.h", "e_bsp.h", "bsp_end", "void ()"},
	{"e_bsp.h", "e_bsp.h", "bsp_get", "void (int, pointer to const void, int, pointer to void, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_get_tag", "void (pointer to int, pointer to void)"},
	{"e_bsp.h", "e_bsp.h", "bsp_hpget", "void (int, pointer to const void, int, pointer to void, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_hpmove", "int (pointer to pointer to void, pointer to pointer to void)"},
	{"e_bsp.h", "e_bsp.h", "bsp_hpput", "void (int, pointer to const void, pointer to void, int, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_move", "void (pointer to void, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_nprocs", "int ()"},
	{"e_bsp.h", "e_bsp.h", "bsp_pid", "int ()"},
	{"e_bsp.h", "e_bsp.h", "bsp_pop_reg", "void (pointer to const void)"},
	{"e_bsp.h", "e_bsp.h", "bsp_push_reg", "void (pointer to const void, const int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_put", "void (int, pointer to const void, pointer to void, int, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_qsize", "void (pointer to int, pointer to int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_send", "void (int, pointer to const void, pointer to const void, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_set_tagsize", "void (pointer to int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_stream_close", "void (pointer to ebsp_stream)"},
	{"e_bsp.h", "e_bsp.h", "bsp_stream_move_down", "int (pointer to ebsp_stream, pointer to pointer to void, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_stream_move_up", "int (pointer to ebsp_stream, pointer to const void, int, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_stream_open", "int (pointer to ebsp_stream, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_stream_seek", "void (pointer to ebsp_stream, int)"},
	{"e_bsp.h", "e_bsp.h", "bsp_sync", "void ()"},
	{"e_bsp.h", "e_bsp.h", "bsp_time", "float ()"},
	{"e_bsp.h", "e_bsp.h", "ebsp_barrier", "void ()"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_close_down_stream", "void (unsigned)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_close_up_stream", "void (unsigned)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_dma_push", "void (pointer to ebsp_dma_handle, pointer to void, pointer to const void, size_t)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_dma_wait", "void (pointer to ebsp_dma_handle)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_ext_malloc", "pointer to void (unsigned)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_free", "void (pointer to void)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_get_direct_address", "pointer to void (int, pointer to const void)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_get_tagsize", "int ()"},
	{"e_bsp.h", "e_bsp.h", "ebsp_host_sync", "void ()"},
	{"e_bsp.h", "e_bsp.h", "ebsp_host_time", "float ()"},
	{"e_bsp.h", "e_bsp.h", "ebsp_malloc", "pointer to void (unsigned)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_memcpy", "void (pointer to void, pointer to const void, size_t)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_message", "void (pointer to const char, ...)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_move_chunk_down", "int (pointer to pointer to void, unsigned, int)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_move_chunk_up", "int (pointer to pointer to void, unsigned, int)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_move_down_cursor", "void (int, int)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_open_down_stream", "int (pointer to pointer to void, unsigned)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_open_up_stream", "int (pointer to pointer to void, unsigned)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_raw_time", "unsigned ()"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_reset_down_cursor", "void (int)"},
	{"e_bsp.h", "e_bsp.h", "ebsp_send_up", "void (pointer to const void, pointer to const void, int)"},
	{"e_bsp.h", "e_bsp_deprecated.h", "ebsp_set_up_chunk_size", "void (unsigned, int)"},
}
