"""sim layer of naoqi_qicore."""
