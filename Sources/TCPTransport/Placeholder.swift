// Placeholder so the package builds before this module lands; replaced by the module's real files.
