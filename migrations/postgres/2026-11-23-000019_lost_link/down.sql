DROP TABLE lost_link_requests;
