package gotests
