<?php
/**
 * Deleting the plugin deletes its settings (the secrets with them). Comment meta stays: the
 * scores and reasons describe comments the site keeps.
 *
 * @package Sift
 */

if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
	exit;
}

delete_option( 'sift_settings' );
