//! The answer to a request that does not succeed.

use crate::http::Response;

/// An answer other than success: a status and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// What was wrong, one line.
    pub message: String,
}

impl ApiError {
    pub(crate) fn new(status: u16, message: &str) -> ApiError {
        ApiError {
            status,
            message: message.to_string(),
        }
    }

    /// 400: the request itself is wrong.
    pub fn bad_request(message: &str) -> ApiError {
        ApiError::new(400, message)
    }

    /// 404: no such thing.
    pub fn not_found(message: &str) -> ApiError {
        ApiError::new(404, message)
    }

    /// 409: not in the game's present state.
    pub fn conflict(message: &str) -> ApiError {
        ApiError::new(409, message)
    }

    /// 500: a bug.
    pub fn internal(message: &str) -> ApiError {
        ApiError::new(500, message)
    }

    /// 503: the server has no room now.
    pub fn unavailable(message: &str) -> ApiError {
        ApiError::new(503, message)
    }

    pub(crate) fn response(&self) -> Response {
        Response::error(self.status, &self.message)
    }
}
